/**
 * The label bound (docs/operations.md "Metrics"): 10,000 random requests (random paths under the site's prefixes, queries, methods,
 * headers and bodies) to the compiled server with METRICS_PORT, then one scrape. No random word may appear in a label
 * value, every label takes its values from a fixed set or the route table, and the scrape stays under the bound.
 * Seeded: the seed is printed, METRICS_FUZZ_SEED=<seed> replays the same requests.
 */
import t from 'tap'
import { labelledMethods, otherMethod, unmatchedRoute } from '../../config/metrics.ts'
import { metricsOriginOf, startServer } from '../reliability/server-process.ts'
import { parseExposition } from './exposition.ts'
import { randomRequests, sendRandomRequests } from './random-requests.ts'

/** Series (sample lines) in one scrape after the fuzz pass, at most: docs/operations.md "Metrics" states this bound. */
const seriesBound = 2000
const count = 10_000
const seed = Number(process.env.METRICS_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 32))

/** Values each bounded label may take, beside the route label (a template of the route table, or `unmatched`). */
const allowedValues: Record<string, readonly string[]> = {
  method: [...labelledMethods, otherMethod],
  status_class: ['1xx', '2xx', '3xx', '4xx', '5xx'],
  document: ['page', 'error'],
  kind: ['static', 'dynamic', 'none'],
  answer: ['props', 'redirect', 'not_found', 'not_modified', 'deployment_skew'],
  cache_state: ['hit', 'stale', 'miss'],
  tier: ['disk', 'redis', 'none'],
  reason: ['overload', 'draining'],
  result: ['accepted', 'invalid', 'method_not_allowed', 'too_large', 'unsupported_type', 'rate_limited', 'failed'],
}

t.test(`${count} random requests leave the series bounded and no request text in a label`, async (t) => {
  t.comment(`seed ${seed} (METRICS_FUZZ_SEED=${seed} replays it)`)
  const server = await startServer(t, { env: { METRICS_PORT: '0' }, keepAccessLines: false })
  const metricsOrigin = await metricsOriginOf(server)
  const scrape = async () => parseExposition(await (await fetch(`${metricsOrigin}/metrics`)).text())
  const before = await scrape()

  const source = randomRequests(seed)
  const { statuses, failed } = await sendRandomRequests(server.origin, source, count)
  t.equal(failed, 0, 'every request answered')
  const serverErrors = [...statuses].filter(([status]) => status >= 500)
  t.same(serverErrors, [], 'no 5xx')
  t.comment(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}`)

  const samples = await scrape()
  const requestSeries = samples.filter((sample) => sample.name.startsWith('courier_http_request_duration_seconds'))
  const counted = requestSeries
    .filter((sample) => sample.name === 'courier_http_request_duration_seconds_count')
    .reduce((sum, sample) => sum + sample.value, 0)
  t.ok(counted >= count, `every request timed (${counted} of at least ${count}, the scrapes and health probes aside)`)

  const byFamily = new Map<string, number>()
  for (const sample of samples) {
    const family = sample.name.replace(/_(bucket|sum|count)$/, '')
    byFamily.set(family, (byFamily.get(family) ?? 0) + 1)
  }
  t.comment(`series before: ${before.length}, after: ${samples.length}`)
  t.comment(
    `courier_* series by family: ${JSON.stringify(Object.fromEntries([...byFamily].filter(([name]) => name.startsWith('courier_'))))}`,
  )
  t.ok(samples.length <= seriesBound, `${samples.length} series in one scrape, at most ${seriesBound}`)

  const routes = new Set(samples.map((sample) => sample.labels.route).filter((route) => route !== undefined))
  t.comment(`route label values: ${[...routes].sort().join(' ')}`)
  for (const route of routes) {
    t.ok(route === unmatchedRoute || route.startsWith('/'), `route ${route} is a template or ${unmatchedRoute}`, {
      diagnostic: false,
    })
  }
  const courierSamples = samples.filter((sample) => sample.name.startsWith('courier_'))
  for (const [label, values] of Object.entries(allowedValues)) {
    const seen = new Set(courierSamples.map((sample) => sample.labels[label]).filter((value) => value !== undefined))
    t.ok(
      [...seen].every((value) => values.includes(value!)),
      `${label}: ${[...seen].join(', ')}`,
    )
  }
  const labelValues = new Set(samples.flatMap((sample) => Object.values(sample.labels)))
  const leaked = [...source.tokens].filter((word) => [...labelValues].some((value) => value.includes(word)))
  t.same(leaked, [], `none of the ${source.tokens.size} random words is in a label value`)
})
