/**
 * End to end: the compiled server (dist-test/node/server.js, as the reliability suite starts it) with METRICS_PORT,
 * scraped every second by a real Prometheus; after some traffic its HTTP API returns the series with the expected
 * labels and counts. The site's port answers 404 for /metrics, and the site serves on when the scraper goes away.
 */
import t from 'tap'
import { metricsOriginOf, startServer } from '../reliability/server-process.ts'
import { publicImagePath } from '../helpers/site-pages.ts'
import { single, startPrometheus, type VectorSample } from './prometheus.ts'

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

async function waitForMetricsPort(origin: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    if (
      (await fetch(`${origin}/metrics`).then(
        (response) => response.status,
        () => 0,
      )) === 200
    )
      return
    await sleep(100)
  }
  throw new Error(`${origin}/metrics never answered 200`)
}

/** The test build's partly prerendered page (test/site/pages/): a dynamic page, whatever pages the site has. */
const dynamicPage = '/__test/partial'
/** The optimizer's URL of a public image of the site, whatever it is. */
const imageUrl = `/_next/image?url=${encodeURIComponent(publicImagePath())}&w=640`

const equalsOne = (expected: number) => (samples: VectorSample[]) => single(samples) === expected

t.test('Prometheus scrapes the series with their labels and counts', async (t) => {
  // METRICS_PORT=0: the system gives it a port, said in its log line.
  const server = await startServer(t, { env: { COURIER_TEST_ROUTES: 'true', METRICS_PORT: '0' } })
  const metricsOrigin = await metricsOriginOf(server)
  const metricsHostPort = new URL(metricsOrigin).host
  await waitForMetricsPort(metricsOrigin)
  t.equal((await fetch(`${server.origin}/metrics`)).status, 404, "the site's port answers 404 for /metrics")
  t.not(metricsOrigin, server.origin, 'a port of its own')
  const listening = server.logs().filter((line) => line.msg === 'metrics endpoint listening')
  t.equal(listening.length, 1, 'one metrics port')
  t.match(metricsOrigin, /^http:\/\/127\.0\.0\.1:\d+$/, 'on METRICS_HOST (loopback by default)')

  const prometheus = await startPrometheus(t, [metricsHostPort])
  await prometheus.waitFor('up{job="courier"}', equalsOne(1))

  // Traffic: every kind of series docs/operations.md "Metrics" lists.
  // Each body is read to its end: an unread one may be collected and its connection closed, which aborts a streamed
  // render before its last boundary and leaves no all-ready time to count.
  const get = async (pathname: string, init?: RequestInit) => {
    const response = await fetch(`${server.origin}${pathname}`, init)
    await response.arrayBuffer()
    return response.status
  }
  for (let index = 0; index < 5; index++) t.equal(await get('/'), 200, 'a static page', { diagnostic: false })
  for (let index = 0; index < 3; index++)
    t.equal(await get(`${dynamicPage}?from=test`), 200, 'a dynamic page', { diagnostic: false })
  t.equal(await get('/__test/slow?delay=300'), 200)
  t.equal(await get('/no-such-page'), 404)
  t.equal(await get('/no-such-page-either'), 404)
  const deploymentId = String(server.logs().find((line) => line.msg === 'deployment')?.deploymentId)
  t.equal(await get(`/_next/data/${deploymentId}/index.json`), 200)
  t.equal(await get(`/_next/data/${deploymentId}${dynamicPage}.json`), 200)
  t.equal(await get(imageUrl, { headers: { accept: 'image/avif,image/webp' } }), 200)
  t.equal(await get(imageUrl, { headers: { accept: 'image/avif,image/webp' } }), 200)
  const report = JSON.stringify({ source: 'boundary', message: 'boom', url: 'https://courier.example/' })
  t.equal(
    await get('/api/client-errors', { method: 'POST', body: report, headers: { 'content-type': 'application/json' } }),
    204,
  )
  t.equal(
    await get('/api/client-errors', { method: 'POST', body: report, headers: { 'content-type': 'text/plain' } }),
    415,
  )

  const requests = await prometheus.waitFor(
    `courier_http_request_duration_seconds_count{route="${dynamicPage}"}`,
    equalsOne(3),
  )
  t.match(requests[0]!.metric, {
    __name__: 'courier_http_request_duration_seconds_count',
    job: 'courier',
    instance: metricsHostPort,
    route: dynamicPage,
    method: 'GET',
    status_class: '2xx',
  })
  t.equal(Object.keys(requests[0]!.metric).length, 6, 'those labels and no other')
  // The two pages that do not exist, and /metrics asked on the site's port.
  await prometheus.waitFor(
    'courier_http_request_duration_seconds_count{route="unmatched",method="GET",status_class="4xx"}',
    equalsOne(3),
  )
  await prometheus.waitFor('courier_kept_documents_sent_total{route="/",document="page"}', equalsOne(5))
  await prometheus.waitFor(`courier_render_shell_seconds_count{route="${dynamicPage}",document="page"}`, equalsOne(3))
  await prometheus.waitFor('courier_render_all_ready_seconds_count{route="/__test/slow"}', equalsOne(1))
  const slow = await prometheus.waitFor(
    'courier_render_all_ready_seconds_sum{route="/__test/slow"}',
    (samples) => samples.length === 1,
  )
  t.ok(Number(slow[0]!.value[1]) >= 0.3, 'all ready after the 300 ms boundary')
  await prometheus.waitFor('courier_page_data_answers_total{kind="static",answer="props"}', equalsOne(1))
  await prometheus.waitFor('courier_page_data_answers_total{kind="dynamic",answer="props"}', equalsOne(1))
  await prometheus.waitFor('courier_image_responses_total{cache_state="miss",tier="none"}', equalsOne(1))
  await prometheus.waitFor('courier_image_responses_total{cache_state="hit",tier="disk"}', equalsOne(1))
  await prometheus.waitFor('courier_image_transform_seconds_count{format="avif"}', equalsOne(1))
  await prometheus.waitFor('courier_image_transform_queue_length', equalsOne(0))
  await prometheus.waitFor('courier_client_reports_total{result="accepted"}', equalsOne(1))
  await prometheus.waitFor('courier_client_reports_total{result="unsupported_type"}', equalsOne(1))
  const build = await prometheus.waitFor('courier_build_info', equalsOne(1))
  t.match(build[0]!.metric, { deployment_id: deploymentId, version: '0.1.0', node_version: /^v\d+\.\d+\.\d+$/ })
  for (const name of ['nodejs_eventloop_lag_p99_seconds', 'nodejs_heap_size_used_bytes', 'process_cpu_seconds_total']) {
    await prometheus.waitFor(name, (samples) => samples.length === 1)
  }
  // The two queries of docs/operations.md "Metrics", over rates: more of the same traffic now that the series exist.
  for (let index = 0; index < 3; index++) t.equal(await get(dynamicPage), 200, 'a dynamic page', { diagnostic: false })
  for (let index = 0; index < 3; index++) {
    t.equal(await get(imageUrl, { headers: { accept: 'image/avif,image/webp' } }), 200, 'an image hit', {
      diagnostic: false,
    })
  }
  const finite = (sample: VectorSample) => Number.isFinite(Number(sample.value[1]))
  const p99 = await prometheus.waitFor(
    'histogram_quantile(0.99, sum by (route, le) (rate(courier_render_shell_seconds_bucket[1m])))',
    (samples) => samples.some((sample) => sample.metric.route === dynamicPage && finite(sample)),
  )
  const statusP99 = Number(p99.find((sample) => sample.metric.route === dynamicPage)!.value[1])
  t.ok(statusP99 > 0 && statusP99 <= 10, `p99 render time by route: ${dynamicPage} ${statusP99} s`)
  const hitRatio = await prometheus.waitFor(
    'sum(rate(courier_image_responses_total{cache_state="hit"}[1m])) / sum(rate(courier_image_responses_total[1m]))',
    (samples) => samples.length === 1 && finite(samples[0]!) && Number(samples[0]!.value[1]) > 0,
  )
  t.ok(Number(hitRatio[0]!.value[1]) <= 1, `image cache hit ratio ${hitRatio[0]!.value[1]}`)

  // The scraper goes away: the site does not notice.
  await prometheus.stop()
  t.equal(await get(dynamicPage), 200)
  t.equal(await get('/'), 200)
  t.equal((await fetch(`${metricsOrigin}/metrics`)).status, 200, 'and a later scraper is served')
  t.same(
    server.logs().filter((line) => line.level >= 50),
    [],
    'no error line',
  )
  t.same(await server.stop(), { code: 0, signal: null }, 'the process closes both ports and exits 0')
})
