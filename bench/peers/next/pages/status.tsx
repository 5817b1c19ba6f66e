import type { GetServerSideProps } from 'next'
import { readFileSync } from 'node:fs'
import { getHeapStatistics } from 'node:v8'
import path from 'node:path'
import { PageHeadTags } from '../components/page-head'
import site, { type PageHead, type StatusData } from '../site'

interface Props {
  data: StatusData
  head: PageHead
}

/** The peer's deployment id is its build id (Courier shows its own deployment id here). Read once. */
let buildId: string | undefined

/** Courier's src/pages/process-memory.ts, the same way: heap figures per request, the resident set size read from
 * the kernel at most every 100 ms (config/server.ts `processMemory`). */
let rss = 0
let rssReadAt = Number.NEGATIVE_INFINITY
function readProcessMemory() {
  const now = performance.now()
  if (now - rssReadAt >= 100) {
    rss = process.memoryUsage.rss()
    rssReadAt = now
  }
  const heap = getHeapStatistics()
  return { rss, heapUsed: heap.used_heap_size, heapTotal: heap.total_heap_size }
}

/** Courier's status loader (src/pages/loaders.ts), the same fields computed the same way, per request. */
export const getServerSideProps: GetServerSideProps<Props> = async () => {
  buildId ??= readFileSync(path.join(process.cwd(), '.next', 'BUILD_ID'), 'utf8').trim()
  return {
    props: {
      head: site.status.head,
      data: {
        deploymentId: buildId,
        serverTime: new Date().toISOString(),
        uptimeS: process.uptime(),
        nodeVersion: process.version,
        memory: readProcessMemory(),
      },
    },
  }
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

/** Courier's status page (site/pages/status.tsx), the same markup. */
export default function StatusPage({ data, head }: Props) {
  return (
    <article className="status">
      <PageHeadTags head={head} />
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
