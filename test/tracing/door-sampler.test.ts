/**
 * Sampling at the door (src/tracing/door-sampler.ts): a new trace is sampled when the request arrives, by the root
 * rule of OTEL_TRACES_SAMPLER; a request turned away gets no span at all; a trusted peer's trace is decided by the
 * SDK as before. Through inject, exporting to a real OTLP receiver, and the decision's parts on their own.
 */
import t from 'tap'
import type { TracingConfig } from '../../config/tracing.ts'
import { DoorDecision, rootSampler } from '../../src/tracing/door-sampler.ts'
import { build } from '../helpers/app.ts'
import { testGuidePath, testGuideRoute, testGuidesPath, testRoutes } from '../helpers/site-pages.ts'
import { otlpReceiverFor, sampledTraceparentMeta } from '../helpers/otlp-receiver.ts'

// The batch processor reads its delay from the environment: spans leave every 50 ms, not every 5 s.
process.env.OTEL_BSP_SCHEDULE_DELAY = '50'

t.test('the root rule of each sampler', async (t) => {
  const config = (sampler: TracingConfig['sampler'], ratio = 1) => ({ sampler, ratio }) as TracingConfig
  t.equal(rootSampler(config('always_on'))(), true)
  t.equal(rootSampler(config('parentbased_always_on'))(), true)
  t.equal(rootSampler(config('always_off'))(), false)
  t.equal(rootSampler(config('parentbased_always_off'))(), false)
  for (const sampler of ['traceidratio', 'parentbased_traceidratio'] as const) {
    const sample = rootSampler(config(sampler, 0.25))
    let sampled = 0
    for (let draw = 0; draw < 20_000; draw += 1) if (sample()) sampled += 1
    // 5,000 expected; the standard deviation is 61, so this band is over 8 of them wide on each side.
    t.ok(sampled > 4_500 && sampled < 5_500, `${sampler} 0.25: ${sampled} of 20,000`)
    t.equal(rootSampler(config(sampler, 0))(), false, 'ratio 0: none')
  }
})

t.test("the door's decision is read once, by the request hook that follows it", async (t) => {
  const untraced = (url: string) => url === '/api/health'
  const door = new DoorDecision()
  const handler = () => undefined
  t.equal(door.ignores({ url: '/things/:name', method: 'GET', handler }, untraced), false, 'a route is wired')
  t.equal(door.ignores({ url: '/api/health', method: 'GET', handler }, untraced), true, 'an untraced route is not')
  door.admit('/a-page', true)
  t.equal(door.ignores({ url: '/a-page', method: 'GET' }, untraced), false, 'admitted: traced')
  t.equal(
    door.ignores({ url: '/a-page', method: 'GET' }, untraced),
    true,
    'a second call for it (a handler wrapper): no span',
  )
  door.admit('/a-page', false)
  t.equal(door.ignores({ url: '/a-page', method: 'GET' }, untraced), true, 'turned away')
  door.admit('/a-page', true)
  t.equal(door.ignores({ url: '/another-page', method: 'GET' }, untraced), true, 'not the request the decision was for')
  door.admit('/api/health', true)
  t.equal(door.ignores({ url: '/api/health', method: 'GET' }, untraced), true, 'untraced paths stay untraced')
  t.equal(
    door.ignores({ url: '/api/health', method: 'GET' }, () => false),
    true,
    "and their request's decision is read too",
  )
  door.admit('/a-page', true)
  door.admit('/another-page', false)
  t.equal(
    door.ignores({ url: '/a-page', method: 'GET' }, untraced),
    true,
    "a decision nobody read gives way to the next request's",
  )
})

t.test(
  'at 20 %: about a fifth of the pages traced, each with its meta and log ids; the rest without a trace',
  async (t) => {
    const receiver = await otlpReceiverFor(t)
    const { app, logs } = await build(t, {
      ...testRoutes,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.2',
    })
    const count = 500
    const traced = new Set<string>()
    for (let index = 0; index < count; index += 1) {
      const response = await app.inject({ url: testGuidesPath, headers: { 'accept-encoding': 'identity' } })
      t.equal(response.statusCode, 200)
      const match = sampledTraceparentMeta.exec(response.body)
      if (match) traced.add(match[1]!)
    }
    await app.close()
    const requestSpans = receiver.spans().filter((span) => span.parentSpanId === undefined || span.parentSpanId === '')
    // 100 expected; the standard deviation is 8.9, so this band is over 4 of them wide on each side.
    t.ok(traced.size > 60 && traced.size < 140, `${traced.size} of ${count} pages traced`)
    t.same(
      new Set(requestSpans.map((span) => span.traceId)),
      traced,
      'a root span for each traced page, and none other',
    )
    t.ok(
      requestSpans.every((span) => span.name === `GET ${testGuidesPath}`),
      'each the request span',
    )
    const access = logs().filter((line) => line.msg === 'request completed')
    t.equal(access.length, count)
    t.same(
      new Set(access.filter((line) => line.trace_id).map((line) => line.trace_id)),
      traced,
      'log ids for the traced ones only',
    )
  },
)

t.test("a trusted peer's trace: its sampled flag decides, whatever the ratio; a 404 is one span", async (t) => {
  const receiver = await otlpReceiverFor(t)
  const { app } = await build(t, {
    ...testRoutes,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: '0',
    TRUST_PROXY: '127.0.0.1',
  })
  const sampledTrace = '4bf92f3577b34da6a3ce929d0e0e4736'
  const unsampledTrace = '5bf92f3577b34da6a3ce929d0e0e4737'
  const parent = '00f067aa0ba902b7'
  const sampled = await app.inject({
    url: testGuidesPath,
    remoteAddress: '127.0.0.1',
    headers: { traceparent: `00-${sampledTrace}-${parent}-01` },
  })
  const unsampled = await app.inject({
    url: testGuidesPath,
    remoteAddress: '127.0.0.1',
    headers: { traceparent: `00-${unsampledTrace}-${parent}-00` },
  })
  const missing = await app.inject({
    url: '/no-such-page',
    remoteAddress: '127.0.0.1',
    headers: { traceparent: `00-${sampledTrace}-${parent}-01` },
  })
  const refused = await app.inject({
    method: 'DELETE',
    url: testGuidePath('any'),
    remoteAddress: '127.0.0.1',
    headers: { traceparent: `00-${sampledTrace}-${parent}-01` },
  })
  const root = await app.inject({ url: testGuidesPath, remoteAddress: '127.0.0.1' })
  t.same(
    [sampled.statusCode, unsampled.statusCode, missing.statusCode, refused.statusCode, root.statusCode],
    [200, 200, 404, 405, 200],
  )
  await app.close()
  const spans = receiver.spans()
  t.same(
    spans.filter((span) => span.traceId === unsampledTrace),
    [],
    'flag 00: nothing',
  )
  const continued = spans.filter((span) => span.traceId === sampledTrace && span.parentSpanId === parent)
  // A 404 matched no route: its span is named by the method alone (plugins/tracing.ts); a 405 by the route refusing it.
  t.same(
    continued.map((span) => span.name).sort(),
    [`DELETE ${testGuideRoute}`, 'GET', `GET ${testGuidesPath}`],
    'flag 01: the page, the 405 and the 404 traced, under the peer’s span',
  )
  const notFound = continued.find((span) => span.name === 'GET')
  const underThe404 = spans.filter((span) => span.parentSpanId === notFound?.spanId)
  t.same(
    underThe404.map((span) => span.name),
    ['courier.render'],
    "Courier's render of the 404 page, no span for the not-found handler",
  )
  t.equal(
    spans.filter((span) => span.traceId !== sampledTrace).length,
    0,
    'ratio 0: the request without a traceparent is not traced',
  )
})
