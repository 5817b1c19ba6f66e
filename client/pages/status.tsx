import type { PageComponentProps } from '../page-modules.ts'
import type { StatusData } from '../../site/data-types.ts'

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

export default function StatusPage({ data }: PageComponentProps<StatusData>) {
  return (
    <article className="status">
      <h1>Status</h1>
      <p className="lead">Read from this server for this request: the page is dynamic, so nothing here is cached.</p>
      <dl className="facts">
        <dt>Deployment</dt>
        <dd data-testid="deployment-id">{data.deploymentId}</dd>
        <dt>Server time</dt>
        <dd>{data.serverTime}</dd>
        <dt>Uptime</dt>
        <dd>{data.uptimeS.toFixed(0)} s</dd>
        <dt>Node.js</dt>
        <dd>{data.nodeVersion}</dd>
        <dt>Resident memory</dt>
        <dd>{megabytes(data.memory.rss)}</dd>
        <dt>Heap used</dt>
        <dd>
          {megabytes(data.memory.heapUsed)} of {megabytes(data.memory.heapTotal)}
        </dd>
      </dl>
    </article>
  )
}
