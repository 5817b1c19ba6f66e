/**
 * src/metrics/labelled-series.ts against prom-client's own Counter and Histogram: the same recordings give the same
 * exposition text and the same `get()` values (what a cluster's primary sums), in any order of arrival.
 */
import t from 'tap'
import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client'
import { LabelledCounter, LabelledHistogram } from '../../src/metrics/labelled-series.ts'
import { parseExposition } from './exposition.ts'

const buckets = [0.001, 0.01, 0.1, 1]
const observations: Array<[number, string, string]> = [
  [0.0005, '/', 'GET'],
  [0.001, '/', 'GET'],
  [0.0011, '/', 'GET'],
  [0.5, '/', 'HEAD'],
  [7, '/', 'GET'],
  [0.02, '/things/:name', 'GET'],
  [0, 'unmatched', 'OTHER'],
  [-1, 'unmatched', 'OTHER'],
]

/** Exposition lines as a sorted list of `name{sorted labels} value`: label and line order are not part of the format. */
async function lines(registry: Registry): Promise<string[]> {
  const samples = parseExposition(await registry.metrics())
  return samples
    .map(({ name, labels, value }) => {
      const sorted = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b))
      return `${name}{${sorted.map(([k, v]) => `${k}=${v}`).join(',')}} ${value}`
    })
    .sort()
}

function both() {
  const reference = new Registry()
  const ours = new Registry()
  const help = 'h'
  const histograms = {
    reference: new Histogram({
      name: 'x_seconds',
      help,
      labelNames: ['route', 'method'],
      buckets,
      registers: [reference],
    }),
    ours: new LabelledHistogram({
      name: 'x_seconds',
      help,
      labelNames: ['route', 'method'],
      buckets,
      registers: [ours],
    }),
  }
  const counters = {
    reference: new Counter({ name: 'y_total', help, labelNames: ['kind', 'answer', 'tier'], registers: [reference] }),
    ours: new LabelledCounter({ name: 'y_total', help, labelNames: ['kind', 'answer', 'tier'], registers: [ours] }),
  }
  return { reference, ours, histograms, counters }
}

t.test('histogram and counter give prom-client exposition, line for line', async (t) => {
  const { reference, ours, histograms, counters } = both()
  for (const [value, route, method] of observations) {
    histograms.reference.observe({ route, method }, value)
    histograms.ours.observe(value, route, method)
  }
  for (const [kind, answer, tier] of [
    ['a', 'b', 'c'],
    ['a', 'b', 'c'],
    ['a', 'c', 'b'],
    ['b', 'b', 'c'],
  ]) {
    counters.reference.inc({ kind: kind!, answer: answer!, tier: tier! })
    counters.ours.inc(kind!, answer, tier)
  }
  const expected = await lines(reference)
  t.ok(expected.length > 20, `${expected.length} lines compared`)
  t.same(await lines(ours), expected)
  t.match(await ours.metrics(), /# HELP x_seconds h\n# TYPE x_seconds histogram\n/)
  t.match(await ours.metrics(), /# TYPE y_total counter\n/)
})

t.test("a cluster primary sums our values as it sums prom-client's", async (t) => {
  const workers = [both(), both()]
  workers.forEach((worker, index) => {
    for (const [value, route, method] of observations.slice(index * 3)) {
      worker.histograms.reference.observe({ route, method }, value)
      worker.histograms.ours.observe(value, route, method)
    }
  })
  const summed = async (which: 'reference' | 'ours') =>
    lines(AggregatorRegistry.aggregate(await Promise.all(workers.map((worker) => worker[which].getMetricsAsJSON()))))
  t.same(await summed('ours'), await summed('reference'))
})

t.test('one series per distinct label values; reset empties them', async (t) => {
  const registry = new Registry()
  const counter = new LabelledCounter({ name: 'z_total', help: 'h', labelNames: ['route'], registers: [registry] })
  for (let i = 0; i < 1000; i++) counter.inc(i % 2 === 0 ? '/' : '/a-page')
  const samples = parseExposition(await registry.metrics())
  t.same(samples.map(({ labels, value }) => [labels.route, value]).sort(), [
    ['/', 500],
    ['/a-page', 500],
  ])
  registry.resetMetrics()
  t.same(parseExposition(await registry.metrics()), [])
})

t.test('bad use is refused where it happens', async (t) => {
  const registry = new Registry()
  const histogram = new LabelledHistogram({
    name: 'w_seconds',
    help: 'h',
    labelNames: ['a'],
    buckets,
    registers: [registry],
  })
  t.throws(() => histogram.observe(Number.NaN, 'x'), /w_seconds: not a finite number/)
  t.throws(() => histogram.observe(Number.POSITIVE_INFINITY, 'x'), /not a finite number/)
  t.throws(
    () => new LabelledCounter({ name: 'v_total', help: 'h', labelNames: [], registers: [] }),
    /one to three labels/,
  )
  t.throws(
    () => new LabelledCounter({ name: 'w_seconds', help: 'h', labelNames: ['a'], registers: [registry] }),
    /already been registered/,
  )
  t.same(parseExposition(await registry.metrics()), [], 'a refused observation records nothing')
})
