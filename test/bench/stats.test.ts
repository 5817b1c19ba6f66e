import t from 'tap'
import { evaluateGoals, goal, median, pairedRatio, ratio } from '../../bench/stats.ts'

t.test('median: the middle pass, the mean of the two middle ones for an even count, null for none', async (t) => {
  t.equal(median([3, 1, 2]), 2)
  t.equal(median([10, 40, 20, 30]), 25)
  t.equal(median([7]), 7)
  t.equal(median([]), null)
  const values = [5, 1, 3]
  median(values)
  t.same(values, [5, 1, 3], 'the passes keep their order')
})

t.test('ratio: Courier over Next to 3 decimals, null without both sides', async (t) => {
  t.equal(ratio(1000, 300), 3.333)
  t.equal(ratio(1, 0), null)
  t.equal(ratio(null, 5), null)
  t.equal(ratio(5, undefined), null)
})

t.test(
  'pairedRatio: the median of pass-by-pass ratios, so one pass where the host changed speed between the two does not decide',
  async (t) => {
    // A bench run's data of / (Node 26 against Node 20): two passes at 1.135 and 1.175, one at 0.778, when the medians
    // of all passes say 0.781.
    const node26 = [10_525, 18_328, 12_175]
    const node20 = [9_270, 15_594, 15_646]
    t.equal(ratio(median(node26), median(node20)), 0.781)
    t.equal(pairedRatio(node26, node20), 1.135)
    t.equal(pairedRatio([100, null], [50, 80]), 2, 'a pair with a side missing is left out')
    t.equal(pairedRatio([], []), null)
    t.equal(pairedRatio([100], [0]), null)
  },
)

t.test('a goal is met, not met, or not measured', async (t) => {
  t.same(goal('x', 5, '>=', 5), { name: 'x', value: 5, goal: '>= 5', met: true })
  t.equal(goal('x', 4.99, '>=', 5).met, false)
  t.equal(goal('x', 0.4, '<=', 0.5).met, true)
  t.equal(goal('x', null, '<=', 0.5).met, null)
})

t.test('the goals from the medians', async (t) => {
  const rps: Record<string, number> = {
    'courier:dynamic-page': 1000,
    'next:dynamic-page': 100,
    'bare:dynamic-page': 1100,
    'courier:static-page': 3000,
    'next:static-page': 300,
    'courier:image-hit': 900,
    'bare:image-hit': 1000,
    'baseline:dynamic-page': 1020,
    'baseline:static-page': 2900,
  }
  const rss: Record<string, number> = {
    'courier:static-page': 60,
    'next:static-page': 200,
    'courier:image-hit': 110,
    'next:image-hit': 200,
    'courier:robots': 50,
  }
  const goals = evaluateGoals({
    rps: (server, kind) => rps[`${server}:${kind}`] ?? null,
    peakRss: (server, kind) => rss[`${server}:${kind}`] ?? null,
    kinds: ['dynamic-page', 'static-page', 'image-hit', 'robots'],
    coldStartMs: { courier: 400, next: 1000 },
    firstLoadJsGzipBytes: 71_000,
    firstLoadJsSentBytes: 61_000,
    firstVisitBytes: { courier: 130_000, next: 200_000 },
    peakRssMiB: { courier: 60, next: 200 },
    ttfb: (server, kind) =>
      server === 'courier' ? (({ 'dynamic-page': 4, 'static-page': 2 } as Record<string, number>)[kind] ?? null) : null,
  })
  const byName = Object.fromEntries(goals.map((entry) => [entry.name, entry]))
  t.equal(goals.length, 25)
  t.equal(byName['partly prerendered /status req/s ÷ static /, Courier']!.value, 0.333)
  t.equal(byName['partly prerendered /status req/s ÷ static /, Courier']!.met, false, 'a third is short of a half')
  t.same(byName['/status time to first byte under load ÷ /, Courier'], {
    name: '/status time to first byte under load ÷ /, Courier',
    value: 2,
    goal: '<= 1.5',
    met: false,
  })
  t.same(byName['dynamic page /status req/s, Courier ÷ Next'], {
    name: 'dynamic page /status req/s, Courier ÷ Next',
    value: 10,
    goal: '>= 5',
    met: true,
  })
  t.equal(byName['dynamic page /status req/s, Courier ÷ bare Fastify floor']!.value, 0.909)
  t.equal(byName['static page / req/s, Courier ÷ Next']!.met, false, '10x is short of 15x')
  t.equal(byName['static page data req/s, Courier ÷ Next']!.met, null, 'no data: not measured, never met')
  t.equal(byName['image cache hit req/s, Courier ÷ @fastify/static']!.met, true)
  t.equal(byName['cold start, Courier ÷ Next']!.met, true)
  t.equal(byName['first-load JS of / (gzip bytes), Courier']!.met, false)
  t.same(
    byName['peak RSS under load, Courier ÷ Next (the largest of any target)'],
    {
      name: 'peak RSS under load, Courier ÷ Next (the largest of any target)',
      value: 0.55,
      goal: '<= 0.5',
      met: false,
    },
    'the image target holds the worst ratio; a kind without Next (robots) counts for nothing',
  )
  t.same(
    byName['req/s, Courier ÷ the same build on the older Node (the lowest of any target)'],
    {
      name: 'req/s, Courier ÷ the same build on the older Node (the lowest of any target)',
      value: 0.98,
      goal: '>= 0.95',
      met: true,
    },
    'the lowest of the kinds both ran',
  )
  t.equal(byName['first-load JS of / as sent (brotli bytes), Courier']!.met, true)
  t.same(byName['bytes on the wire, first visit to /, Courier ÷ Next'], {
    name: 'bytes on the wire, first visit to /, Courier ÷ Next',
    value: 0.65,
    goal: '<= 0.6',
    met: false,
  })
  t.equal(byName['static page / req/s, compressed ÷ identity, Courier']!.met, null, 'no compressed run: not measured')
})

t.test('without an older Node beside it, the runtime comparison is not measured', async (t) => {
  const goals = evaluateGoals({
    rps: (server) => (server === 'baseline' ? null : 100),
    peakRss: () => 100,
    kinds: ['static-page'],
    coldStartMs: { courier: null, next: null },
    firstLoadJsGzipBytes: null,
    firstLoadJsSentBytes: null,
    firstVisitBytes: { courier: null, next: null },
    peakRssMiB: { courier: null, next: null },
  })
  const runtime = goals.find((entry) => entry.name.startsWith('req/s, Courier ÷ the same build'))!
  t.equal(runtime.met, null)
})
