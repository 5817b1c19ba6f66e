/**
 * Tracing in one process through inject: the traceparent meta of documents kept for the deployment (plain and gzip,
 * one per request), the client report's link to its page, remote image fetches carrying the traceparent of their
 * CLIENT span (sampled requests only).
 */
import Fastify, { type FastifyInstance } from 'fastify'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { gunzipSync } from 'node:zlib'
import { pino } from 'pino'
import t, { type Test } from 'tap'
import { loadTracingConfig } from '../../config/tracing.ts'
import deploymentId from '../../plugins/deployment-id.ts'
import errors from '../../plugins/errors.ts'
import image from '../../plugins/image.ts'
import tracing from '../../plugins/tracing.ts'
import type { LookupFunction } from '../../src/images/source-remote.ts'
import { build, captureLogs } from '../helpers/app.ts'
import { testGuidesPath, testRoutes } from '../helpers/site-pages.ts'
import { jpegOf, temporaryFolder } from '../helpers/images.ts'
import { otlpReceiverFor, sampledTraceparentMeta, until } from '../helpers/otlp-receiver.ts'

// The batch processor reads its delay from the environment: spans leave every 50 ms, not every 5 s.
process.env.OTEL_BSP_SCHEDULE_DELAY = '50'

t.test('a kept document carries each request its own traceparent, plain and gzip', async (t) => {
  const receiver = await otlpReceiverFor(t)
  const { app, logs } = await build(t, { ...testRoutes, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint })
  const plain = await app.inject({ url: testGuidesPath, headers: { 'accept-encoding': 'identity' } })
  const gzip = await app.inject({ url: testGuidesPath, headers: { 'accept-encoding': 'gzip' } })
  t.equal(gzip.headers['content-encoding'], 'gzip')
  const plainHtml = plain.body
  const gzipHtml = gunzipSync(gzip.rawPayload).toString('utf8')
  const [, plainTrace, plainSpan] = sampledTraceparentMeta.exec(plainHtml) ?? []
  const [, gzipTrace, gzipSpan] = sampledTraceparentMeta.exec(gzipHtml) ?? []
  t.ok(plainTrace && gzipTrace && plainTrace !== gzipTrace, 'each response its own trace')
  t.equal(logs().filter((line) => line.msg === 'document rendered once').length, 1, 'from one kept document')
  t.equal(Number(plain.headers['content-length']), Buffer.byteLength(plainHtml), 'content-length counts the meta')
  t.match(plainHtml, /<head>[\s\S]*<meta name="traceparent"[^>]*><title>/, 'in the head, before the title')
  const access = logs().filter((line) => line.msg === 'request completed')
  t.same(
    access.map((line) => [line.trace_id, line.span_id]),
    [
      [plainTrace, plainSpan],
      [gzipTrace, gzipSpan],
    ],
    'the access lines name the same spans',
  )
  // Without the meta and the nonces, the two are the same document.
  const strip = (html: string) => html.replace(sampledTraceparentMeta, '').replace(/ nonce="[^"]*"/g, '')
  t.equal(strip(gzipHtml), strip(plainHtml))
})

t.test("a client report links to its page's trace, never joins it", async (t) => {
  const receiver = await otlpReceiverFor(t)
  const { app, logs } = await build(t, { ...testRoutes, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint })
  const page = await app.inject(testGuidesPath)
  const [, pageTrace, pageSpan] = sampledTraceparentMeta.exec(page.body) ?? []
  const report = {
    source: 'onerror',
    message: 'TypeError: x is undefined',
    url: `http://localhost${testGuidesPath}`,
    traceparent: `00-${pageTrace}-${pageSpan}-01`,
  }
  const sent = await app.inject({ method: 'POST', url: '/api/client-errors', payload: report })
  t.equal(sent.statusCode, 204)
  const line = logs().find((entry) => entry.msg === 'client error reported')!
  t.equal(line.page_trace_id, pageTrace, 'the log line names the page trace')
  t.not(line.trace_id, pageTrace, 'its own trace is not the page one')
  const span = await until('the client report span', () =>
    receiver.spans().find((entry) => entry.name === 'courier.client_report'),
  )
  t.same(span.links, [{ traceId: pageTrace, spanId: pageSpan }], 'linked to the page span')
  t.equal(span.traceId, line.trace_id)
  t.match(span.attributes, { 'courier.client_report.source': 'onerror' })

  for (const traceparent of [
    '00-zz',
    `00-${pageTrace}-${pageSpan}-01${'0'.repeat(5000)}`,
    `01-${pageTrace}-${pageSpan}-01`,
  ]) {
    const refused = await app.inject({
      method: 'POST',
      url: '/api/client-errors',
      payload: { ...report, message: traceparent.slice(0, 20), traceparent },
    })
    t.equal(refused.statusCode, 400, `a malformed traceparent is refused: ${traceparent.slice(0, 20)}`)
  }
})

/** Resolves every name to the loopback address, where the test's upstream listens. */
const loopbackLookup: LookupFunction = (_hostname, options, callback) => {
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }])
  else callback(null, '127.0.0.1', 4)
}

/** An upstream for remote images: `/old.jpg` redirects to `/photo.jpg`, `/missing.jpg` is a 404; every request's headers are kept. */
async function upstreamFor(t: Test) {
  const photo = await jpegOf(300, 200)
  const received: Array<{ url: string; headers: http.IncomingHttpHeaders }> = []
  const upstream = http.createServer((request, response) => {
    received.push({ url: request.url ?? '', headers: request.headers })
    if (request.url?.startsWith('/old.jpg')) return response.writeHead(301, { location: '/photo.jpg' }).end()
    if (request.url?.startsWith('/missing.jpg')) return response.writeHead(404).end()
    response.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo)
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        upstream.closeAllConnections()
        upstream.close(() => resolve())
      }),
  )
  return { port: (upstream.address() as AddressInfo).port, received }
}

async function imageApp(t: Test, env: Record<string, string>, origin: string): Promise<FastifyInstance> {
  const { stream } = captureLogs()
  const app = Fastify({ loggerInstance: pino({ level: 'info' }, stream) }) as unknown as FastifyInstance
  await app.register(deploymentId, { distDir: path.resolve('dist'), dev: false, expected: undefined })
  await app.register(tracing, { config: loadTracingConfig(env), trustProxy: false })
  await app.register(errors)
  await app.register(image, {
    publicRoot: temporaryFolder(t, 'public'),
    cacheDir: temporaryFolder(t, 'cache'),
    limits: { remoteOrigins: [origin] },
    lookup: loopbackLookup,
    isAddressRefused: () => false,
  })
  t.teardown(() => app.close())
  return app
}

t.test(
  'a remote image fetch is a CLIENT span under the image span, and its traceparent goes to the remote host',
  async (t) => {
    const receiver = await otlpReceiverFor(t)
    const { port, received } = await upstreamFor(t)
    const origin = `http://images.test:${port}`
    const app = await imageApp(t, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint }, origin)

    // A redirect on the way, and a query: the span's url.full leaves it out.
    const response = await app.inject(`/_next/image?url=${encodeURIComponent(`${origin}/old.jpg?v=2`)}&w=128`)
    t.equal(response.statusCode, 200)
    t.equal(response.headers['x-image-cache'], 'MISS')
    t.same(
      received.map((request) => request.url),
      ['/old.jpg?v=2', '/photo.jpg'],
      'the redirect followed',
    )
    const traceparent = String(received[0]?.headers.traceparent ?? '')
    t.match(traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/, 'the upstream got a traceparent')
    t.equal(received[1]?.headers.traceparent, traceparent, 'the same on the redirected request')
    t.notOk(received[0]?.headers.tracestate, 'no tracestate: none was given')

    const fetchSpan = await until('the fetch span', () =>
      receiver.spans().find((span) => span.name === 'courier.image.fetch'),
    )
    t.equal(fetchSpan.kind, 3, 'a CLIENT span')
    t.equal(traceparent, `00-${fetchSpan.traceId}-${fetchSpan.spanId}-01`, 'the traceparent names the fetch span')
    t.same(
      fetchSpan.attributes,
      {
        'http.request.method': 'GET',
        'server.address': 'images.test',
        'server.port': port,
        'url.full': `${origin}/old.jpg`,
        'http.response.status_code': 200,
      },
      'the HTTP client attributes, the final status',
    )
    t.same(
      fetchSpan.events,
      [{ name: 'redirect', attributes: { 'url.full': `${origin}/photo.jpg` } }],
      'the redirect as an event',
    )
    // The image span ends after the fetch span: it may come in a later batch.
    const imageSpan = await until('the image span', () =>
      receiver.spans().find((span) => span.spanId === fetchSpan.parentSpanId),
    )
    t.match(imageSpan, {
      name: 'courier.image',
      traceId: fetchSpan.traceId,
      attributes: { 'courier.image.cache': 'miss', 'courier.image.source': 'remote' },
    })
    const transform = receiver.spans().find((span) => span.name === 'courier.image.transform')
    t.match(
      transform,
      { parentSpanId: imageSpan.spanId, traceId: imageSpan.traceId, kind: 1 },
      'the transform under the image span too',
    )
    const requestSpan = await until('the request span', () =>
      receiver.spans().find((span) => span.spanId === imageSpan.parentSpanId),
    )
    t.equal(requestSpan.kind, 2, 'under the request span')
  },
)

t.test('a failed remote fetch: its span has the status, error.type and status ERROR', async (t) => {
  const receiver = await otlpReceiverFor(t)
  const { port } = await upstreamFor(t)
  const origin = `http://images.test:${port}`
  const app = await imageApp(t, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint }, origin)
  const response = await app.inject(`/_next/image?url=${encodeURIComponent(`${origin}/missing.jpg`)}&w=128`)
  t.equal(response.statusCode, 502)
  const fetchSpan = await until('the fetch span', () =>
    receiver.spans().find((span) => span.name === 'courier.image.fetch'),
  )
  t.match(fetchSpan, {
    kind: 3,
    status: { code: 2 },
    attributes: { 'http.response.status_code': 404, 'error.type': '404', 'url.full': `${origin}/missing.jpg` },
  })
  t.ok(
    fetchSpan.events.some((event) => event.name === 'exception'),
    'the exception',
  )
})

t.test('a request not sampled: the remote fetch makes no span and sends no traceparent', async (t) => {
  const receiver = await otlpReceiverFor(t)
  const { port, received } = await upstreamFor(t)
  const origin = `http://images.test:${port}`
  const app = await imageApp(
    t,
    { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_TRACES_SAMPLER: 'always_off' },
    origin,
  )
  const response = await app.inject(`/_next/image?url=${encodeURIComponent(`${origin}/photo.jpg`)}&w=128`)
  t.equal(response.statusCode, 200)
  t.equal(received.length, 1)
  t.notOk(received[0]?.headers.traceparent, 'no traceparent')
  await app.close()
  t.same(receiver.spans(), [], 'no span exported')
})
