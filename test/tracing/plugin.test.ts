/**
 * Tracing in one process through inject: the traceparent meta of documents kept for the deployment (plain and gzip,
 * one per request), the client report's link to its page, remote image fetches carrying traceparent.
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
import { jpegOf, temporaryFolder } from '../helpers/images.ts'
import { startOtlpReceiver, until, type OtlpReceiver } from '../helpers/otlp-receiver.ts'

// The batch processor reads its delay from the environment: spans leave every 50 ms, not every 5 s.
process.env.OTEL_BSP_SCHEDULE_DELAY = '50'

const traceparentMeta = /<meta name="traceparent" content="00-([0-9a-f]{32})-([0-9a-f]{16})-01">/

async function receiverFor(t: Test): Promise<OtlpReceiver> {
  const receiver = await startOtlpReceiver()
  t.teardown(() => receiver.close())
  return receiver
}

t.test('a kept document carries each request its own traceparent, plain and gzip', async (t) => {
  const receiver = await receiverFor(t)
  const { app, logs } = await build(t, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint })
  const plain = await app.inject({ url: '/guides', headers: { 'accept-encoding': 'identity' } })
  const gzip = await app.inject({ url: '/guides', headers: { 'accept-encoding': 'gzip' } })
  t.equal(gzip.headers['content-encoding'], 'gzip')
  const plainHtml = plain.body
  const gzipHtml = gunzipSync(gzip.rawPayload).toString('utf8')
  const [, plainTrace, plainSpan] = traceparentMeta.exec(plainHtml) ?? []
  const [, gzipTrace, gzipSpan] = traceparentMeta.exec(gzipHtml) ?? []
  t.ok(plainTrace && gzipTrace && plainTrace !== gzipTrace, 'each response its own trace')
  t.equal(logs().filter((line) => line.msg === 'document rendered once').length, 1, 'from one kept document')
  t.equal(Number(plain.headers['content-length']), Buffer.byteLength(plainHtml), 'content-length counts the meta')
  t.match(plainHtml, /<head>[\s\S]*<meta name="traceparent"[^>]*><title>/, 'in the head, before the title')
  const access = logs().filter((line) => line.msg === 'request completed')
  t.same(access.map((line) => [line.trace_id, line.span_id]), [[plainTrace, plainSpan], [gzipTrace, gzipSpan]], 'the access lines name the same spans')
  // Without the meta and the nonces, the two are the same document.
  const strip = (html: string) => html.replace(traceparentMeta, '').replace(/ nonce="[^"]*"/g, '')
  t.equal(strip(gzipHtml), strip(plainHtml))
})

t.test("a client report links to its page's trace, never joins it", async (t) => {
  const receiver = await receiverFor(t)
  const { app, logs } = await build(t, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint })
  const page = await app.inject('/faq')
  const [, pageTrace, pageSpan] = traceparentMeta.exec(page.body) ?? []
  const report = { source: 'onerror', message: 'TypeError: x is undefined', url: 'http://localhost/faq', traceparent: `00-${pageTrace}-${pageSpan}-01` }
  const sent = await app.inject({ method: 'POST', url: '/api/client-errors', payload: report })
  t.equal(sent.statusCode, 204)
  const line = logs().find((entry) => entry.msg === 'client error reported')!
  t.equal(line.page_trace_id, pageTrace, 'the log line names the page trace')
  t.not(line.trace_id, pageTrace, 'its own trace is not the page one')
  const span = await until('the client report span', () => receiver.spans().find((entry) => entry.name === 'courier.client_report'))
  t.same(span.links, [{ traceId: pageTrace, spanId: pageSpan }], 'linked to the page span')
  t.equal(span.traceId, line.trace_id)
  t.match(span.attributes, { 'courier.client_report.source': 'onerror' })

  for (const traceparent of ['00-zz', `00-${pageTrace}-${pageSpan}-01${'0'.repeat(5000)}`, `01-${pageTrace}-${pageSpan}-01`]) {
    const refused = await app.inject({ method: 'POST', url: '/api/client-errors', payload: { ...report, message: traceparent.slice(0, 20), traceparent } })
    t.equal(refused.statusCode, 400, `a malformed traceparent is refused: ${traceparent.slice(0, 20)}`)
  }
})

/** Resolves every name to the loopback address, where the test's upstream listens. */
const loopbackLookup: LookupFunction = (_hostname, options, callback) => {
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }])
  else callback(null, '127.0.0.1', 4)
}

t.test("a remote image fetch carries the trace's traceparent, under the fetch span", async (t) => {
  const receiver = await receiverFor(t)
  const photo = await jpegOf(300, 200)
  const received: http.IncomingHttpHeaders[] = []
  const upstream = http.createServer((request, response) => {
    received.push(request.headers)
    response.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo)
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => {
    upstream.closeAllConnections()
    upstream.close(() => resolve())
  }))
  const origin = `http://images.test:${(upstream.address() as AddressInfo).port}`

  const { stream } = captureLogs()
  const app = Fastify({ loggerInstance: pino({ level: 'info' }, stream) }) as unknown as FastifyInstance
  await app.register(deploymentId, { distDir: path.resolve('dist'), dev: false, expected: undefined })
  await app.register(tracing, { config: loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint }), trustProxy: false })
  await app.register(errors)
  await app.register(image, {
    publicRoot: temporaryFolder(t, 'public'),
    cacheDir: temporaryFolder(t, 'cache'),
    limits: { remoteOrigins: [origin] },
    lookup: loopbackLookup,
    isAddressRefused: () => false,
  })
  t.teardown(() => app.close())

  const response = await app.inject(`/_next/image?url=${encodeURIComponent(`${origin}/photo.jpg`)}&w=128`)
  t.equal(response.statusCode, 200)
  t.equal(response.headers['x-image-cache'], 'MISS')
  const traceparent = String(received[0]?.traceparent ?? '')
  t.match(traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/, 'the upstream got a traceparent')
  const fetchSpan = await until('the fetch span', () => receiver.spans().find((span) => span.name === 'courier.image.fetch'))
  const client = await until('the client span', () => receiver.spans().find((span) => span.parentSpanId === fetchSpan.spanId))
  t.equal(client.kind, 3, "undici's client span, under the fetch span")
  t.equal(traceparent, `00-${client.traceId}-${client.spanId}-01`, 'naming that span')
  // The image span ends after the fetch span: it may come in a later batch.
  const imageSpan = await until('the image span', () => receiver.spans().find((span) => span.spanId === fetchSpan.parentSpanId))
  t.match(imageSpan, { name: 'courier.image', attributes: { 'courier.image.cache': 'miss', 'courier.image.source': 'remote' } })
})
