/**
 * WEB_CONCURRENCY=2 with METRICS_PORT: the primary alone binds the metrics port, and one scrape of it shows the whole
 * process, the requests every worker answered summed (prom-client's AggregatorRegistry over the cluster's IPC).
 */
import t from 'tap'
import { request } from 'undici'
import { metricsOriginOf, startServer } from '../reliability/server-process.ts'
import { parseExposition, valueOf } from './exposition.ts'
import { startPrometheus, single } from './prometheus.ts'
import { testRoutes } from '../helpers/site-pages.ts'

/** The test build's partly prerendered page (test/site/pages/): rendered on every request. */
const dynamicPage = '/__test/partial'

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

async function waitFor<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const found = await check()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(100)
  }
}

t.test('one scrape of the primary sums every worker; workers bind no metrics port', async (t) => {
  const server = await startServer(t, { env: { ...testRoutes, WEB_CONCURRENCY: '2', METRICS_PORT: '0' } })
  const metricsOrigin = await metricsOriginOf(server)
  const metricsUrl = `${metricsOrigin}/metrics`
  await waitFor('both workers listening', () => {
    const listening = new Set(
      server
        .logs()
        .filter((line) => /Server listening/.test(line.msg))
        .map((line) => line.pid),
    )
    return listening.size >= 2 ? listening : undefined
  })
  const metricsLines = server.logs().filter((line) => line.msg === 'metrics endpoint listening')
  t.same(
    metricsLines.map((line) => line.pid),
    [server.pid],
    'only the primary listens on METRICS_PORT',
  )

  // A connection per request: node:cluster hands connections, not requests, to the workers.
  const total = 40
  for (let index = 0; index < total; index++) {
    const response = await request(`${server.origin}${dynamicPage}`, { headers: { connection: 'close' } })
    await response.body.dump()
    t.equal(response.statusCode, 200, `request ${index}`, { diagnostic: false })
  }
  await waitFor('40 access lines', () => (server.accessCounts().total >= total ? true : undefined), 10_000)
  const servedBy = new Set(
    server
      .logs()
      .filter((line) => line.msg === 'request completed' && line.url === dynamicPage)
      .map((line) => line.pid),
  )
  t.equal(servedBy.size, 2, 'both workers answered some of them')

  // A worker still starting does not answer the primary yet: scrape until the sum holds (or fail after the wait).
  const samples = await waitFor('the summed count', async () => {
    const response = await fetch(metricsUrl)
    if (response.status !== 200) return undefined
    const parsed = parseExposition(await response.text())
    return valueOf(parsed, 'courier_http_request_duration_seconds_count', {
      route: dynamicPage,
      method: 'GET',
      status_class: '2xx',
    }) === total
      ? parsed
      : undefined
  })
  t.equal(valueOf(samples, 'courier_render_shell_seconds_count', { route: dynamicPage }), total, 'renders summed too')
  t.equal(valueOf(samples, 'courier_cluster_workers'), 2, 'the primary counts its workers')
  t.equal(valueOf(samples, 'courier_build_info'), 1, 'one build, whatever the number of workers')
  t.equal(samples.filter((sample) => sample.name === 'courier_build_info').length, 1)
  t.type(valueOf(samples, 'nodejs_heap_size_used_bytes'), 'number', "the workers' process metrics, summed")

  const prometheus = await startPrometheus(t, [new URL(metricsOrigin).host])
  const scraped = await prometheus.waitFor(
    `courier_http_request_duration_seconds_count{route="${dynamicPage}",status_class="2xx"}`,
    (found) => single(found) === total,
  )
  t.equal(scraped.length, 1, 'Prometheus sees one series for the whole process, not one per worker')
  t.same(await server.stop(), { code: 0, signal: null }, 'SIGTERM: the primary closes the metrics port and exits 0')
})
