/**
 * plugins/metrics.ts in the whole app (METRICS_PORT set), through inject: what each part of Courier records, with
 * which labels, and that no label ever carries what a client sent.
 */
import t from 'tap'
import http from 'node:http'
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { clientErrorsPath } from '../../config/client-errors.ts'
import { images } from '../../config/images.ts'
import { CourierMetrics } from '../../src/metrics/courier-metrics.ts'
import { methodLabel, statusClassLabel } from '../../src/metrics/labels.ts'
import { build } from '../helpers/app.ts'
import { fixtureContentDir, guides } from '../helpers/content.ts'
import { jpegOf, temporaryFolder } from '../helpers/images.ts'
import { publicImagePath, testGuidePath, testGuideRoute, testGuidesPath, testRoutes } from '../helpers/site-pages.ts'
import { listen } from '../helpers/http.ts'
import { parseExposition, valueOf, type Sample } from './exposition.ts'

async function scrape(app: FastifyInstance): Promise<Sample[]> {
  const recorder = app.metrics
  if (!(recorder instanceof CourierMetrics)) throw new Error('the metrics plugin is not registered')
  return parseExposition(await recorder.registry.metrics())
}

const requestCount = 'courier_http_request_duration_seconds_count'
/** A guide of the tests' own content (test/helpers/content.ts). */
const guideSlug = guides[0]!.slug

t.test('requests are timed by route template, method and status class; no label carries the URL', async (t) => {
  const { app } = await build(t, { ...testRoutes, METRICS_PORT: '0' })
  const responses = [
    await app.inject(`${testGuidePath(guideSlug)}?utm_source=secret-query`),
    await app.inject(testGuidePath(guideSlug)),
    await app.inject(testGuidePath('no-such-guide-7f3a')),
    await app.inject('/no-such-page-91c2'),
    await app.inject('/%zz-bad-escape'),
    await app.inject('/metrics'),
    await app.inject({ method: 'PROPFIND', url: testGuidesPath }),
    await app.inject({ method: 'DELETE', url: testGuidesPath }),
    await app.inject({ method: 'HEAD', url: testGuidesPath }),
    await app.inject('/api/health'),
  ]
  t.same(
    responses.map((response) => response.statusCode),
    [200, 200, 404, 404, 400, 404, 405, 405, 200, 200],
  )
  t.equal(responses[5]!.statusCode, 404, 'the site port answers 404 for /metrics')

  const samples = await scrape(app)
  const count = (labels: Record<string, string>) => valueOf(samples, requestCount, labels)
  t.equal(count({ route: testGuideRoute, method: 'GET', status_class: '2xx' }), 2, 'by route template, query or not')
  t.equal(
    count({ route: testGuideRoute, method: 'GET', status_class: '4xx' }),
    undefined,
    "a loader's not-found is the 404 page's",
  )
  t.equal(
    count({ route: 'unmatched', method: 'GET', status_class: '4xx' }),
    4,
    'every 404 page and the bad escape: one fixed label',
  )
  t.equal(
    count({ route: testGuidesPath, method: 'OTHER', status_class: '4xx' }),
    1,
    'a method outside the list is OTHER (its 405 is the page path)',
  )
  t.equal(
    count({ route: testGuidesPath, method: 'DELETE', status_class: '4xx' }),
    1,
    'a 405 is labelled with the page path',
  )
  t.equal(count({ route: testGuidesPath, method: 'HEAD', status_class: '2xx' }), 1)
  t.equal(count({ route: '/api/health', method: 'GET', status_class: '2xx' }), 1)
  const durations = samples.filter((sample) => sample.name === 'courier_http_request_duration_seconds_sum')
  t.ok(
    durations.every((sample) => sample.value > 0 && sample.value < 10),
    'durations in seconds',
  )

  const labelValues = samples.flatMap((sample) => Object.values(sample.labels))
  for (const asked of [guideSlug, 'utm_source', 'secret-query', 'no-such', '%zz', 'PROPFIND', '/metrics']) {
    t.notOk(
      labelValues.some((value) => value.includes(asked)),
      `no label value holds ${asked}`,
    )
  }
})

t.test('method and status-class labels take fixed values whatever they are given', async (t) => {
  t.same(['GET', 'HEAD', 'OPTIONS', 'PROPFIND', 'get', 'M-SEARCH', ''].map(methodLabel), [
    'GET',
    'HEAD',
    'OPTIONS',
    'OTHER',
    'OTHER',
    'OTHER',
    'OTHER',
  ])
  t.same([100, 204, 308, 404, 503, 599, 99, 600, 0].map(statusClassLabel), [
    '1xx',
    '2xx',
    '3xx',
    '4xx',
    '5xx',
    '5xx',
    'other',
    'other',
    'other',
  ])
})

t.test('renders: time to shell and to all ready for streamed documents, kept documents counted', async (t) => {
  const { app } = await build(t, { METRICS_PORT: '0', COURIER_TEST_ROUTES: 'true' })
  t.equal((await app.inject('/')).statusCode, 200)
  t.equal((await app.inject('/')).statusCode, 200)
  t.equal((await app.inject('/no-such-page')).statusCode, 404)
  t.equal((await app.inject('/__test/partial')).statusCode, 200)
  t.equal((await app.inject('/__test/slow?delay=300')).statusCode, 200)

  const samples = await scrape(app)
  t.equal(
    valueOf(samples, 'courier_kept_documents_sent_total', { route: '/', document: 'page' }),
    2,
    'a static page: its kept bytes, twice',
  )
  t.equal(
    valueOf(samples, 'courier_kept_documents_sent_total', { route: 'unmatched', document: 'error' }),
    1,
    'the 404 page too',
  )
  t.equal(
    valueOf(samples, 'courier_render_shell_seconds_count', { route: '/', document: 'page' }),
    undefined,
    'a kept page streams nothing',
  )
  t.equal(valueOf(samples, 'courier_render_shell_seconds_count', { route: '/__test/partial', document: 'page' }), 1)
  t.equal(valueOf(samples, 'courier_render_all_ready_seconds_count', { route: '/__test/partial', document: 'page' }), 1)
  const slowShell = valueOf(samples, 'courier_render_shell_seconds_sum', { route: '/__test/slow', document: 'page' })!
  const slowAllReady = valueOf(samples, 'courier_render_all_ready_seconds_sum', {
    route: '/__test/slow',
    document: 'page',
  })!
  t.ok(slowShell < 0.3, `the shell comes before the slow boundary (${slowShell} s)`)
  t.ok(slowAllReady >= 0.3, `all ready after the 300 ms boundary (${slowAllReady} s)`)
})

t.test('a render aborted by its time-out counts its shell, not an all-ready', async (t) => {
  const { app } = await build(
    t,
    { METRICS_PORT: '0', COURIER_TEST_ROUTES: 'true' },
    { limits: { renderTimeoutMs: 200 } },
  )
  const response = await app.inject('/__test/slow?delay=2000')
  t.equal(response.statusCode, 200, 'the shell went out before the time-out')
  const samples = await scrape(app)
  t.equal(valueOf(samples, 'courier_render_shell_seconds_count', { route: '/__test/slow' }), 1)
  t.equal(valueOf(samples, 'courier_render_all_ready_seconds_count', { route: '/__test/slow' }), undefined)
})

t.test('page data: answers by page kind and what they say', async (t) => {
  const { app } = await build(t, { ...testRoutes, METRICS_PORT: '0' })
  const data = (page: string, headers: Record<string, string> = {}) =>
    app.inject({ url: `/_next/data/${app.deploymentId}/${page}.json`, headers })
  const first = await data('index')
  t.equal(first.statusCode, 200)
  t.equal((await data('index', { 'if-none-match': String(first.headers.etag) })).statusCode, 304)
  t.equal((await data(testGuidePath('no-such-guide').slice(1))).statusCode, 404)
  t.equal((await data('__test/partial')).statusCode, 200)
  t.equal((await data('no/such/page')).statusCode, 404)
  t.equal((await app.inject('/_next/data/another-deployment/index.json')).statusCode, 409)

  const samples = await scrape(app)
  const answers = (kind: string, answer: string) =>
    valueOf(samples, 'courier_page_data_answers_total', { kind, answer })
  t.equal(answers('static', 'props'), 1)
  t.equal(answers('static', 'not_modified'), 1)
  t.equal(answers('static', 'not_found'), 1)
  t.equal(answers('dynamic', 'props'), 1)
  t.equal(answers('none', 'not_found'), 1)
  t.equal(answers('none', 'deployment_skew'), 1)
})

t.test('kept pages pushed out by their bound are counted', async (t) => {
  const { app } = await build(t, { ...testRoutes, METRICS_PORT: '0' }, { limits: { staticPageCacheEntries: 1 } })
  for (const guide of guides.slice(0, 3)) t.equal((await app.inject(testGuidePath(guide.slug))).statusCode, 200)
  t.equal(valueOf(await scrape(app), 'courier_kept_pages_evicted_total', {}), 2, 'the first two, each in its turn')
})

t.test('client reports: accepted and refused, by reason', async (t) => {
  const { app } = await build(t, { METRICS_PORT: '0' })
  const report = { source: 'boundary', message: 'boom', url: 'https://courier.example/a-page' }
  const post = (payload: string, type = 'application/json') =>
    app.inject({ method: 'POST', url: clientErrorsPath, payload, headers: { 'content-type': type } })
  t.equal((await post(JSON.stringify(report))).statusCode, 204)
  t.equal((await post(JSON.stringify({ ...report, source: 'made-up' }))).statusCode, 400)
  t.equal((await post(JSON.stringify(report), 'text/plain')).statusCode, 415)
  t.equal((await post(JSON.stringify({ ...report, message: 'x'.repeat(20_000) }))).statusCode, 413)
  t.equal((await app.inject({ method: 'GET', url: clientErrorsPath })).statusCode, 405)

  const samples = await scrape(app)
  const reports = (result: string) => valueOf(samples, 'courier_client_reports_total', { result })
  t.equal(reports('accepted'), 1)
  t.equal(reports('invalid'), 1)
  t.equal(reports('unsupported_type'), 1)
  t.equal(reports('too_large'), 1)
  t.equal(reports('method_not_allowed'), 1)
})

t.test('images: cache states and tier, transform durations by format, the queue read at scrape time', async (t) => {
  const { app } = await build(t, { METRICS_PORT: '0' })
  const url = `/_next/image?url=${encodeURIComponent(publicImagePath())}&w=640`
  const miss = await app.inject({ url, headers: { accept: 'image/webp' } })
  t.equal(miss.headers['x-image-cache'], 'MISS')
  const hit = await app.inject({ url, headers: { accept: 'image/webp' } })
  t.equal(hit.headers['x-image-cache'], 'HIT')
  t.equal((await app.inject('/_next/image?url=%2Fimages%2Fnothing-here.jpg&w=640')).statusCode, 404)

  const samples = await scrape(app)
  t.equal(valueOf(samples, 'courier_image_responses_total', { cache_state: 'miss', tier: 'none' }), 1)
  t.equal(valueOf(samples, 'courier_image_responses_total', { cache_state: 'hit', tier: 'disk' }), 1)
  t.equal(valueOf(samples, 'courier_image_responses_total', { cache_state: 'stale' }), undefined)
  t.equal(valueOf(samples, 'courier_image_transform_seconds_count', { format: 'webp' }), 1)
  t.ok(valueOf(samples, 'courier_image_transform_seconds_sum', { format: 'webp' })! > 0)
  t.equal(valueOf(samples, 'courier_image_transform_queue_length'), 0)
  t.equal(valueOf(samples, 'courier_image_transforms_running'), 0)
  t.equal(valueOf(samples, 'courier_content_reads_stuck'), 0, 'content reads, read at scrape time')
  t.equal(valueOf(samples, 'courier_content_read_timeouts_total'), 0)
})

t.test('build info and the default process metrics', async (t) => {
  const { app, config } = await build(t, { METRICS_PORT: '0' })
  const samples = await scrape(app)
  const { version } = JSON.parse(await readFile(path.join(config.rootDir, 'package.json'), 'utf8')) as {
    version: string
  }
  t.equal(
    valueOf(samples, 'courier_build_info', { deployment_id: app.deploymentId, version, node_version: process.version }),
    1,
  )
  for (const name of [
    'nodejs_eventloop_lag_p99_seconds',
    'nodejs_heap_size_used_bytes',
    'process_cpu_seconds_total',
    'process_resident_memory_bytes',
  ]) {
    t.type(valueOf(samples, name), 'number', name)
  }
  const text = await (app.metrics as CourierMetrics).registry.metrics()
  t.match(text, '# TYPE nodejs_gc_duration_seconds histogram', 'GC durations are collected')
})

t.test('requests refused while draining are counted', async (t) => {
  const { app } = await build(t, { METRICS_PORT: '0' })
  const base = await listen(app)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  t.teardown(() => agent.destroy())
  const get = (pathname: string) =>
    new Promise<number>((resolve, reject) => {
      http
        .get(`${base}${pathname}`, { agent }, (response) => {
          response.resume()
          response.on('end', () => resolve(response.statusCode ?? 0))
        })
        .on('error', reject)
    })
  t.equal(await get('/api/health'), 200)
  const closed = app.close()
  while (app.server.listening) await new Promise((resolve) => setTimeout(resolve, 5))
  t.equal(await get('/'), 503, 'the kept-alive connection gets the drain answer')
  await closed
  const samples = await scrape(app)
  t.equal(valueOf(samples, 'courier_requests_shed_total', { reason: 'draining' }), 1)
  t.equal(valueOf(samples, 'courier_requests_shed_total', { reason: 'overload' }), undefined)
})

t.test('requests shed under overload are counted', async (t) => {
  const { app } = await build(
    t,
    { METRICS_PORT: '0' },
    { limits: { loadSampleIntervalMs: 20, maxEventLoopDelayMs: 40 } },
  )
  await app.inject('/api/health')
  const pending = []
  for (let slice = 0; slice < 8; slice++) {
    const until = performance.now() + 150
    while (performance.now() < until) {
      // blocking on purpose: this is the overload
    }
    pending.push(app.inject('/'))
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
  const statuses = (await Promise.all(pending)).map((response) => response.statusCode)
  const shed = statuses.filter((status) => status === 503).length
  t.ok(shed > 0, `some requests were shed (${shed} of ${statuses.length})`)
  const samples = await scrape(app)
  t.equal(
    valueOf(samples, 'courier_requests_shed_total', { reason: 'overload' }),
    shed,
    'every shed request counted once',
  )
  t.equal(
    valueOf(samples, requestCount, { route: '/', method: 'GET', status_class: '5xx' }),
    shed,
    'and timed as a 5xx of its route',
  )
})

t.test('image requests refused by a full transform queue are counted as shed (image_busy), never as 5xx', async (t) => {
  // Five images of the test's own content (CONTENT_DIR/images/, served at /content/images/), whatever the site has.
  const contentDir = temporaryFolder(t, 'metrics-images')
  await cp(fixtureContentDir, contentDir, { recursive: true })
  await mkdir(path.join(contentDir, 'images'), { recursive: true })
  const names = ['one', 'two', 'three', 'four', 'five'].map((name) => `${name}.jpg`)
  for (const name of names) await writeFile(path.join(contentDir, 'images', name), await jpegOf(1200, 800))
  const { app } = await build(t, { METRICS_PORT: '0', CONTENT_DIR: contentDir })
  // More distinct transforms at once than the queue holds (2 running, 64 waiting): five images at each of the small
  // widths (quick transforms: JPEG shrinks on load), in three formats.
  const widths = images.imageSizes
  const paths = names.flatMap((name) =>
    widths.map((width) => `/_next/image?url=${encodeURIComponent(`/content/images/${name}`)}&w=${width}`),
  )
  const answers = await Promise.all(
    ['image/avif', 'image/webp', 'image/jpeg'].flatMap((accept) =>
      paths.map((url) => app.inject({ url, headers: { accept } })),
    ),
  )
  const statuses = answers.map((response) => response.statusCode)
  const busy = statuses.filter((status) => status !== 200).length
  t.ok(busy > 0, `some were refused busy (${busy} of ${statuses.length})`)
  t.same([...new Set(statuses)].sort(), busy === statuses.length ? [429] : [200, 429], 'each is a 200 or a 429')
  const samples = await scrape(app)
  t.equal(
    valueOf(samples, 'courier_requests_shed_total', { reason: 'image_busy' }),
    busy,
    'every busy answer counted once',
  )
  t.equal(
    valueOf(samples, requestCount, { route: '/_next/image', method: 'GET', status_class: '5xx' }),
    undefined,
    'no 5xx',
  )
})
