/**
 * Traces end to end: the compiled test-build server (as `npm start` runs it) with the OTEL_* variables, exporting
 * over OTLP/HTTP (http/protobuf, the default) to a real receiver on a loopback port. A page, its data, an image miss
 * and a failing page: the span tree, the digest on the error, the log lines' trace ids, the document's traceparent;
 * forged traceparent headers from an untrusted client neither break a request nor reach the trace.
 */
import t from 'tap'
import { startServer, type ServerProcess } from '../reliability/server-process.ts'
import { startOtlpReceiver, until, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.ts'
import { loadSite } from '../../src/pages/site.ts'
import { publicImagePath, testGuidesPath, testRoutes } from '../helpers/site-pages.ts'

/** The access line of a request, by its URL. */
function accessLine(server: ServerProcess, url: string) {
  return server.logs().find((line) => line.msg === 'request completed' && line.url === url)
}

function childrenOf(spans: ReceivedSpan[], parent: ReceivedSpan): ReceivedSpan[] {
  return spans.filter((span) => span.parentSpanId === parent.spanId && span.traceId === parent.traceId)
}

/** The request span of the access line's trace, once it and its children have arrived. */
async function requestSpan(receiver: OtlpReceiver, server: ServerProcess, url: string, childCount: number) {
  const line = await until(`the access line of ${url}`, () => accessLine(server, url))
  return until(`the spans of ${url}`, () => {
    const spans = receiver.spans()
    const root = spans.find((span) => span.traceId === line.trace_id && span.spanId === line.span_id)
    return root && childrenOf(spans, root).length >= childCount ? { root, line } : undefined
  })
}

const forgedTraceId = '4bf92f3577b34da6a3ce929d0e0e4736'
/** The test build's partly prerendered page (test/site/pages/). */
const partialPath = '/__test/partial'
/** An optimizer URL of a public image of the site, whatever it is. */
const imageUrl = `/_next/image?url=${encodeURIComponent(publicImagePath())}&w=64&q=75`
/** The id of the site's home page, from its page table. */
const homeId = (await loadSite(false)).pages.find((page) => page.path === '/')!.id

t.test('a page, its data, an image miss and a failing page, traced over OTLP/HTTP protobuf', async (t) => {
  const receiver = await startOtlpReceiver()
  t.teardown(() => receiver.close())
  const server = await startServer(t, {
    env: {
      COURIER_TEST_ROUTES: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_SERVICE_NAME: 'courier-test',
      // Spans leave every 100 ms instead of every 5 s: the test waits less.
      OTEL_BSP_SCHEDULE_DELAY: '100',
    },
  })
  t.ok(
    server.logs().some((line) => line.msg === 'tracing on' && line.protocol === 'http/protobuf'),
    'tracing on, default protocol',
  )

  const page = await fetch(`${server.origin}/`)
  const html = await page.text()
  t.equal(page.status, 200)
  const deploymentId = /data-dpl-id="([^"]+)"/.exec(html)?.[1] ?? ''
  const data = await fetch(`${server.origin}/_next/data/${deploymentId}/index.json`)
  t.equal(data.status, 200, 'page data')
  await data.text()
  const dynamicData = await fetch(`${server.origin}/_next/data/${deploymentId}${partialPath}.json`)
  t.equal(dynamicData.status, 200, 'page data of a dynamic page')
  await dynamicData.text()
  const again = await fetch(`${server.origin}/?again=1`)
  t.equal(again.status, 200, 'the page again')
  await again.text()
  const image = await fetch(`${server.origin}${imageUrl}`, { headers: { accept: 'image/webp' } })
  t.equal(image.headers.get('x-image-cache'), 'MISS', 'an image miss')
  await image.arrayBuffer()
  const partlyPrerendered = await fetch(`${server.origin}${partialPath}`)
  t.equal(partlyPrerendered.status, 200, 'a partly prerendered page')
  await partlyPrerendered.text()
  const failing = await fetch(`${server.origin}/__test/server-error`)
  const failingHtml = await failing.text()
  t.equal(failing.status, 500)
  // The visitor sees the digest only; the trace has it too.
  const digest = /"digest":"([0-9a-f]+)"/.exec(failingHtml)?.[1]
  t.ok(digest, 'the error page shows a digest')
  t.notMatch(failingHtml, /trace_id|traceparent|failed on purpose/, 'and no trace id, traceparent or message')

  // The page: request span (the filter's decision on it), loader, render.
  const pageTrace = await requestSpan(receiver, server, '/', 2)
  const { root } = pageTrace
  t.equal(root.name, 'GET /')
  t.equal(root.kind, 2, 'a server span')
  t.equal(root.parentSpanId, '', 'a root: the client is not a trusted proxy')
  t.match(root.attributes, {
    'http.route': '/',
    'http.request.method': 'GET',
    'http.response.status_code': 200,
    'url.path': '/',
    'courier.deployment_id': deploymentId,
  })
  t.match(
    root.attributes,
    { 'courier.filter.decision': 'applied', 'courier.filter.answered': false, 'courier.filter.duration_ms': Number },
    "the filter's outcome",
  )
  t.equal(root.resource['service.name'], 'courier-test')
  const children = childrenOf(receiver.spans(), root)
  const names = children.map((span) => span.name).sort()
  t.same(names, ['courier.page_loader', 'courier.render'])
  t.match(children.find((span) => span.name === 'courier.page_loader')!.attributes, {
    'courier.page.id': homeId,
    'courier.loader.answer': 'props',
  })
  t.match(children.find((span) => span.name === 'courier.render')!.attributes, {
    'courier.render.target': 'page',
    'courier.page.id': homeId,
  })
  t.match(
    html,
    `<meta name="traceparent" content="00-${root.traceId}-${root.spanId}-01">`,
    "the document carries its request's traceparent",
  )

  // The same page again: its answer and its document are kept, nothing loads or renders. No child span; the request
  // span says what was sent.
  const keptTrace = await requestSpan(receiver, server, '/?again=1', 0)
  t.same(childrenOf(receiver.spans(), keptTrace.root), [], 'no child span')
  t.match(
    keptTrace.root.attributes,
    {
      'courier.page.id': homeId,
      'courier.page.kind': 'static',
      'courier.loader.answer': 'props',
      'courier.loader.kept': true,
      'courier.render.target': 'page',
      'courier.render.kept': true,
    },
    'the kept answer and document, on the request span',
  )

  // The page data: its span. The page's answer is kept by now (the page was served first): no loader span under it.
  const dataTrace = await requestSpan(receiver, server, `/_next/data/${deploymentId}/index.json`, 1)
  t.equal(dataTrace.root.name, 'GET /_next/data/:deploymentId/*')
  const dataSpan = childrenOf(receiver.spans(), dataTrace.root).find((span) => span.name === 'courier.page_data')!
  t.match(dataSpan.attributes, {
    'courier.page.id': homeId,
    'courier.loader.answer': 'props',
    'courier.loader.kept': true,
  })
  t.same(childrenOf(receiver.spans(), dataSpan), [], 'the kept answer: no loader span')
  // A dynamic page's data: its loader runs, in a span under the page-data span. The test build's page is partly
  // prerendered: its kept half is loaded once (a `static` loader span, the first time), its request-time half on every request.
  const dynamicTrace = await requestSpan(receiver, server, `/_next/data/${deploymentId}${partialPath}.json`, 1)
  const dynamicSpan = childrenOf(receiver.spans(), dynamicTrace.root).find((span) => span.name === 'courier.page_data')!
  const loaderSpans = await until('the loader spans under page data', () => {
    const found = childrenOf(receiver.spans(), dynamicSpan)
    return found.length > 1 ? found : undefined
  })
  t.same(
    loaderSpans.map((span) => span.name),
    ['courier.page_loader', 'courier.page_loader'],
  )
  const kinds = loaderSpans.map((span) => span.attributes['courier.page.kind']).sort()
  t.same(kinds, ['dynamic', 'static'], 'the kept half once, the request-time half')
  for (const span of loaderSpans)
    t.match(span.attributes, { 'courier.page.id': 'test-partial', 'courier.loader.answer': 'props' })

  // The image miss: the optimizer's span with its cache state, the transform under it.
  const imageTrace = await requestSpan(receiver, server, imageUrl, 1)
  t.equal(imageTrace.root.name, 'GET /_next/image')
  const imageSpan = childrenOf(receiver.spans(), imageTrace.root).find((span) => span.name === 'courier.image')!
  t.match(imageSpan.attributes, {
    'courier.image.cache': 'miss',
    'courier.image.source': 'local',
    'courier.image.width': 64,
  })
  const transform = childrenOf(receiver.spans(), imageSpan).find((span) => span.name === 'courier.image.transform')
  t.match(
    transform?.attributes,
    { 'courier.image.format': 'webp', 'courier.image.source_format': 'jpeg' },
    'the transform',
  )

  // The partly prerendered page: its holes resumed from the kept shell, in a render span, as a streamed render's.
  const partialTrace = await requestSpan(receiver, server, partialPath, 1)
  const resumed = await until('the resumed render span', () =>
    childrenOf(receiver.spans(), partialTrace.root).find((span) => span.name === 'courier.render'),
  )
  t.match(
    resumed.attributes,
    {
      'courier.render.target': 'page',
      'courier.page.id': 'test-partial',
      'courier.render.kept': false,
      'courier.render.resumed': true,
      'courier.render.time_to_all_ready_ms': Number,
    },
    'the resumed render, to its end',
  )

  // The failing page: ERROR with the digest and the exception on the request span; the loader's span failed too.
  const failTrace = await requestSpan(receiver, server, '/__test/server-error', 2)
  t.equal(failTrace.root.name, 'GET /__test/server-error')
  t.equal(failTrace.root.status.code, 2, 'status ERROR')
  t.equal(failTrace.root.attributes['courier.digest'], digest, 'the digest the visitor saw')
  t.equal(failTrace.root.attributes['http.response.status_code'], 500)
  t.ok(
    failTrace.root.events.some(
      (event) =>
        event.name === 'exception' && String(event.attributes['exception.message']).includes('failed on purpose'),
    ),
    'the exception',
  )
  const failChildren = childrenOf(receiver.spans(), failTrace.root)
  t.equal(failChildren.find((span) => span.name === 'courier.page_loader')?.status.code, 2, 'the loader span failed')
  t.match(failChildren.find((span) => span.name === 'courier.render')?.attributes, {
    'courier.render.target': 'error',
    'http.response.status_code': 500,
  })
  const errorLine = server.logs().find((line) => line.msg === 'request failed' && line.digest === digest)
  t.match(
    errorLine,
    { trace_id: failTrace.root.traceId, span_id: failTrace.root.spanId },
    'so has the error line, and the trace id',
  )

  for (const trace of [pageTrace, keptTrace, dataTrace, imageTrace, failTrace]) {
    const lines = server.logs().filter((line) => line.reqId === trace.line.reqId)
    t.ok(
      lines.length > 0 &&
        lines.every((line) => line.trace_id === trace.root.traceId && line.span_id === trace.root.spanId),
      `every line of ${String(trace.line.url)} carries its trace and span ids`,
    )
  }

  // Forged traceparents from an untrusted client (TRUST_PROXY off): well-formed, malformed, huge. Each request is
  // answered and starts a trace of its own; the forged trace id is nowhere.
  const forged = [
    `00-${forgedTraceId}-00f067aa0ba902b7-01`,
    `00-${forgedTraceId}-00f067aa0ba902b7-01-extra`,
    'ff-zz-not-a-trace',
    `00-${forgedTraceId}-${'0'.repeat(8000)}-01`,
    `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
  ]
  for (const [index, traceparent] of forged.entries()) {
    const response = await fetch(`${server.origin}${testGuidesPath}?forged=${index}`, {
      headers: { traceparent, tracestate: `x=${'y'.repeat(500)}` },
    })
    t.equal(response.status, 200, `forged traceparent ${index}: answered`)
    await response.text()
    const trace = await requestSpan(receiver, server, `${testGuidesPath}?forged=${index}`, 0)
    t.equal(trace.root.parentSpanId, '', `forged traceparent ${index}: a new root`)
  }
  t.notOk(
    receiver
      .spans()
      .some((span) => span.traceId === forgedTraceId || span.links.some((link) => link.traceId === forgedTraceId)),
    'the forged trace id reached no span',
  )
  t.ok(
    receiver.contentTypes().every((type) => type === 'application/x-protobuf'),
    'sent as http/protobuf',
  )
})

t.test('behind a trusted proxy, its traceparent continues the trace; http/json works too', async (t) => {
  const receiver = await startOtlpReceiver()
  t.teardown(() => receiver.close())
  const server = await startServer(t, {
    env: {
      ...testRoutes,
      TRUST_PROXY: '127.0.0.1',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.endpoint}/v1/traces`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    },
  })
  const parentSpanId = '00f067aa0ba902b7'
  const response = await fetch(`${server.origin}${testGuidesPath}`, {
    headers: { traceparent: `00-${forgedTraceId}-${parentSpanId}-01` },
  })
  t.equal(response.status, 200)
  await response.text()
  const { root, line } = await requestSpan(receiver, server, testGuidesPath, 1)
  t.equal(root.traceId, forgedTraceId, "the proxy's trace continues")
  t.equal(root.parentSpanId, parentSpanId, 'under its span')
  t.equal(line.trace_id, forgedTraceId)
  t.ok(
    receiver.contentTypes().every((type) => type.startsWith('application/json')),
    'sent as http/json',
  )
})
