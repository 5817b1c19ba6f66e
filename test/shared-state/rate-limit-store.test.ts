/**
 * Courier's @fastify/rate-limit store without Redis: the local counts (src/shared-state/local-rate-limit.ts) as the
 * plugin's options mean them, and the store's fall-back (src/shared-state/rate-limit-store.ts) through the real
 * plugin, with the fleet's side standing in memory where Redis would be. The scale suite counts in a real redis-server
 * (test/scale/shared-state.test.ts, test/scale/nginx.test.ts).
 */
import Fastify, { type FastifyInstance } from 'fastify'
import rateLimit from '@fastify/rate-limit'
import t, { type Test } from 'tap'
import { LocalRateLimit } from '../../src/shared-state/local-rate-limit.ts'
import { sharedRateLimitStore, type SharedRateLimits } from '../../src/shared-state/rate-limit-store.ts'

const plain = { continueExceeding: false, exponentialBackoff: false }

t.test('local counts: a budget per client and window, read without counting', async (t) => {
  const clock = { now: 1_000 }
  const counts = new LocalRateLimit(plain, undefined, () => clock.now)
  t.same(counts.incr('a', 60_000, 2), { current: 1, ttl: 60_000 })
  clock.now += 10_000
  t.same(counts.incr('a', 60_000, 2), { current: 2, ttl: 50_000 }, 'the same window, its time left')
  t.same(counts.read('a'), { current: 2, ttl: 50_000 }, 'read: the count as it is')
  t.same(counts.read('a'), { current: 2, ttl: 50_000 }, 'and reading did not count')
  t.same(counts.incr('a', 60_000, 2), { current: 3, ttl: 50_000 }, 'over the budget: the window does not move')
  t.same(counts.incr('b', 60_000, 2), { current: 1, ttl: 60_000 }, 'another client, its own count')
  clock.now += 50_000
  t.same(counts.read('a'), { current: 0, ttl: 0 }, 'the window over: nothing counted')
  t.same(counts.incr('a', 60_000, 2), { current: 1, ttl: 60_000 }, 'a new window')
})

t.test('local counts: continueExceeding starts the window again on every request over the budget', async (t) => {
  const clock = { now: 0 }
  const counts = new LocalRateLimit({ continueExceeding: true, exponentialBackoff: true }, undefined, () => clock.now)
  counts.incr('a', 1_000, 1)
  clock.now += 900
  t.same(counts.incr('a', 1_000, 1), { current: 2, ttl: 1_000 }, 'over: a whole window again (it wins over back-off)')
  clock.now += 900
  t.same(counts.incr('a', 1_000, 1), { current: 3, ttl: 1_000 })
  clock.now += 1_000
  t.same(counts.incr('a', 1_000, 1), { current: 1, ttl: 1_000 }, 'a quiet window: the client starts afresh')
})

t.test('local counts: exponentialBackoff doubles the window on each request over the budget', async (t) => {
  const clock = { now: 0 }
  const counts = new LocalRateLimit({ continueExceeding: false, exponentialBackoff: true }, undefined, () => clock.now)
  counts.incr('a', 1_000, 2)
  counts.incr('a', 1_000, 2)
  t.same(counts.incr('a', 1_000, 2), { current: 3, ttl: 1_000 }, 'the first over: one window')
  t.same(counts.incr('a', 1_000, 2), { current: 4, ttl: 2_000 }, 'then two')
  t.same(counts.incr('a', 1_000, 2), { current: 5, ttl: 4_000 }, 'then four')
  clock.now += 3_000
  t.same(counts.read('a'), { current: 5, ttl: 1_000 }, 'still counted past the time window')
  for (let index = 0; index < 2_000; index++) counts.incr('a', 1_000, 2)
  const { ttl } = counts.read('a')
  t.ok(Number.isFinite(ttl) && ttl > 2 ** 52, 'the back-off stops growing at the longest window, a finite one')
})

t.test('local counts are bounded: past the bound, the least recently seen client starts afresh', async (t) => {
  const counts = new LocalRateLimit(plain, { maxEntries: 2, maxBytes: 1024 })
  counts.incr('a', 60_000, 5)
  counts.incr('a', 60_000, 5)
  counts.incr('b', 60_000, 5)
  counts.incr('a', 60_000, 5)
  counts.incr('c', 60_000, 5)
  t.equal(counts.read('b').current, 0, 'b, seen least recently, went')
  t.equal(counts.read('a').current, 3, 'a is still counted')
  t.equal(counts.read('c').current, 1)
})

/** The fleet's counts in memory, where Redis keeps them: shared by every app given it; `up` and failures set. */
function fleetCounts() {
  const routes = new Map<string, LocalRateLimit>()
  const failures: string[] = []
  const state = { up: true, failing: false }
  const shared: SharedRateLimits = {
    get up() {
      return state.up
    },
    counter(route, exceeding) {
      const counts = routes.get(route) ?? new LocalRateLimit(exceeding)
      routes.set(route, counts)
      const answer = <T>(value: () => T) =>
        state.failing ? Promise.reject(new Error('Command timed out')) : Promise.resolve(value())
      return {
        incr: (key, timeWindow, max) => answer(() => counts.incr(key, timeWindow, max)),
        read: (key) => answer(() => counts.read(key)),
      }
    },
    failed: (_error, command) => failures.push(command),
  }
  return { shared, state, failures }
}

/** One instance: a route limited to 3 calls a minute per client, and a limiter read without counting. */
async function instance(t: Test, shared: SharedRateLimits): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(rateLimit, { global: false, store: sharedRateLimitStore(shared) })
  const spent = app.createRateLimit({ max: 3, timeWindow: 60_000, keyGenerator: (request) => request.ip })
  app.post('/limited', { config: { rateLimit: { max: 3, timeWindow: 60_000 } } }, async () => 'ok')
  app.get('/spent', async (request) => {
    const before = await spent(request, { increment: false })
    await spent(request)
    return { remaining: before.isAllowed ? null : before.remaining }
  })
  await app.ready()
  return app
}

const post = (app: FastifyInstance, ip: string) =>
  app.inject({ method: 'POST', url: '/limited', remoteAddress: ip }).then((response) => response.statusCode)

t.test('shared counts up: one budget per client across instances', async (t) => {
  const { shared, failures } = fleetCounts()
  const [first, second] = [await instance(t, shared), await instance(t, shared)]
  t.same(
    [await post(first, '192.0.2.1'), await post(second, '192.0.2.1'), await post(first, '192.0.2.1')],
    [200, 200, 200],
  )
  t.equal(await post(second, '192.0.2.1'), 429, 'the 4th is refused, though the 3 went to two instances')
  t.equal(await post(second, '192.0.2.2'), 200, 'another client, its own budget')
  t.same((await first.inject({ url: '/spent', remoteAddress: '192.0.2.1' })).json(), { remaining: 3 })
  t.same((await second.inject({ url: '/spent', remoteAddress: '192.0.2.1' })).json(), { remaining: 2 }, 'read, shared')
  t.same(failures, [])
})

t.test('shared counts down: each instance counts alone, no request fails; back up, shared again', async (t) => {
  const { shared, state, failures } = fleetCounts()
  const [first, second] = [await instance(t, shared), await instance(t, shared)]
  state.up = false
  const statuses = [await post(first, '192.0.2.1'), await post(first, '192.0.2.1'), await post(first, '192.0.2.1')]
  t.same(statuses, [200, 200, 200])
  t.equal(await post(first, '192.0.2.1'), 429, 'the local budget still holds')
  t.equal(await post(second, '192.0.2.1'), 200, 'per instance: the other has counted nothing')
  t.same(failures, [], 'no command sent while it is down')
  state.up = true
  t.equal(await post(second, '192.0.2.1'), 200, 'up again: the shared count, which the outage did not touch')
  t.equal(await post(first, '192.0.2.1'), 200)
  t.equal(await post(second, '192.0.2.1'), 200)
  t.equal(await post(first, '192.0.2.1'), 429, 'one budget again')
})

t.test('shared commands failing: counted locally, each failure said, no request fails', async (t) => {
  const { shared, state, failures } = fleetCounts()
  const app = await instance(t, shared)
  state.failing = true
  const statuses: number[] = []
  for (let index = 0; index < 4; index++) statuses.push(await post(app, '192.0.2.9'))
  t.same(statuses, [200, 200, 200, 429], 'the local budget, with no 5xx')
  t.same((await app.inject({ url: '/spent', remoteAddress: '192.0.2.9' })).json(), { remaining: 3 })
  t.same(failures, [
    'rate-limit incr',
    'rate-limit incr',
    'rate-limit incr',
    'rate-limit incr',
    'rate-limit read',
    'rate-limit incr',
  ])
})
