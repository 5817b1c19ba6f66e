import { definePage, type PageProps } from '../../client/page.ts'
import { titled } from '../site.ts'
import type * as server from './status.server.ts'
import type { StatusData } from '../data-types.ts'
import { RequestTime } from '../../client/components/request-time.tsx'

export const page = definePage<typeof server>({
  path: '/status',
  kind: 'dynamic',
  // A kept shell (headings, explanations, the deployment's facts) with the live figures as holes.
  prerender: 'partial',
  head: () => ({ title: titled('Status'), description: 'Live state of this Courier server.' }),
})

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

/** What a hole shows until its figures arrive: the same terms, so nothing moves when they do. */
function Pending({ terms }: { terms: readonly string[] }) {
  return (
    <dl className="facts" aria-busy="true">
      {terms.map((term) => [<dt key={`${term}-term`}>{term}</dt>, <dd key={`${term}-value`}>…</dd>])}
    </dl>
  )
}

/**
 * The server's state. Partly prerendered: everything but the live figures is rendered once per deployment and sent
 * at once; each request's figures stream into the two holes.
 */
export default function StatusPage({ data }: PageProps<typeof server>) {
  const { kept, live } = data
  return (
    <article className="status">
      <h1>Status</h1>
      <p className="lead">
        This page is partly prerendered: its frame and the deployment’s facts are kept for the deployment and sent at
        once, and the live figures below are read from this server for this request.
      </p>
      <h2>This deployment</h2>
      <dl className="facts">
        <dt>Deployment</dt>
        <dd data-testid="deployment-id">{kept.deploymentId}</dd>
        <dt>Node.js</dt>
        <dd>{kept.nodeVersion}</dd>
      </dl>
      <h2>Clock</h2>
      <RequestTime data={live} fallback={<Pending terms={['Server time', 'Uptime']} />}>
        {(figures) => (
          <dl className="facts">
            <dt>Server time</dt>
            <dd data-testid="server-time">{figures.serverTime}</dd>
            <dt>Uptime</dt>
            <dd>{figures.uptimeS.toFixed(0)} s</dd>
          </dl>
        )}
      </RequestTime>
      <h2>Memory</h2>
      <RequestTime data={live} fallback={<Pending terms={['Resident memory', 'Heap used']} />}>
        {(figures) => (
          <dl className="facts">
            <dt>Resident memory</dt>
            <dd>{megabytes(figures.memory.rss)}</dd>
            <dt>Heap used</dt>
            <dd>
              {megabytes(figures.memory.heapUsed)} of {megabytes(figures.memory.heapTotal)}
            </dd>
          </dl>
        )}
      </RequestTime>
    </article>
  )
}
