/**
 * Revalidations across instances without Redis (src/shared-state/revalidation-channel.ts): several channels, each
 * with its own connection to one revalidation state in memory (src/shared-state/memory-revalidation-log.ts), the
 * interface the Redis log implements. The scale suite runs the same channel against a real redis-server
 * (test/scale/revalidation.test.ts).
 */
import { pino } from 'pino'
import t, { type Test } from 'tap'
import { MemoryRevalidationLog, MemoryRevalidationState } from '../helpers/memory-revalidation-log.ts'
import { RevalidationChannel } from '../../src/shared-state/revalidation-channel.ts'
import type { Revalidation } from '../../src/pages/revalidation.ts'
import { captureLogs } from '../helpers/app.ts'
import { recordedPages } from '../helpers/revalidated-pages.ts'

async function waitFor(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

const everything = (list: Revalidation[]) => list.filter((item) => item === 'everything').length
/** What each revalidation named (an instance applies the logged entry: its number, epoch and sender besides). */
const named = (list: Revalidation[]) =>
  list.map((item) => (item === 'everything' ? item : { paths: item.paths, tags: item.tags }))

/** One instance: its channel over a connection of its own, its kept pages' record and its log lines. */
async function instance(t: Test, state: MemoryRevalidationState, versionCheckMs: number) {
  const fleet = new MemoryRevalidationLog(state)
  const recorded = recordedPages()
  const { stream, lines } = captureLogs()
  const channel = new RevalidationChannel({
    fleet,
    pages: recorded.pages,
    log: pino({ level: 'debug' }, stream),
    versionCheckMs,
  })
  t.teardown(() => channel.close())
  // At start, the first number it learns: every page it keeps is checked once.
  await waitFor('the first check', () => everything(recorded.revalidated) === 1)
  const warnings = () =>
    lines()
      .filter((line) => line.level === 40)
      .map((line) => line.msg)
  return { channel, fleet, logs: lines, warnings, ...recorded }
}

/** `size` instances started one after the other, each checked in before the next: the last knows them all. */
async function fleetOf(t: Test, size: number, options: { versionCheckMs?: number; logLength?: number } = {}) {
  const state = new MemoryRevalidationState(options.logLength === undefined ? {} : { logLength: options.logLength })
  const instances = []
  for (let index = 0; index < size; index++) instances.push(await instance(t, state, options.versionCheckMs ?? 60_000))
  /** A writer of the log that is none of the instances (another site's script, or an instance that died). */
  const elsewhere = new MemoryRevalidationLog(state)
  return { state, instances, elsewhere }
}

const message = { paths: ['/__test/guides/tide-tables'], tags: [] }
const second = { paths: [], tags: ['guides'] }

t.test('a revalidation reaches every instance: applied once on each, the call counts them', async (t) => {
  const { instances } = await fleetOf(t, 3)
  const [first, other, teller] = instances
  t.same(await teller!.channel.tell(message), { instances: 3, alive: 3 })
  t.same(
    named(teller!.revalidated),
    ['everything', message],
    'applied on the instance that took the call before it answers, and not again when its own message arrives',
  )
  t.same(named(first!.revalidated), ['everything', message], 'applied by the others before the call is answered')
  t.same(named(other!.revalidated), ['everything', message])
  t.same(teller!.warnings(), [])
})

t.test('a revalidation no instance heard is caught up at the next check of the newest number', async (t) => {
  const { instances, elsewhere } = await fleetOf(t, 2, { versionCheckMs: 10 })
  await elsewhere.append({ ...message, from: 'elsewhere' })
  await waitFor('every instance caught up', () => instances.every((one) => one.revalidated.length === 2))
  for (const one of instances) {
    t.same(named(one.revalidated), ['everything', message])
    t.ok(
      one.logs().some((line) => line.msg === 'revalidations missed: catching up from the log'),
      'said in the log',
    )
  }
})

t.test('a message that skips a number: the one missed is read from the log first, in order', async (t) => {
  const { instances, elsewhere } = await fleetOf(t, 2)
  await elsewhere.append({ ...message, from: 'elsewhere' })
  const { text } = await elsewhere.append({ ...second, from: 'elsewhere' })
  t.equal(await elsewhere.announce(text), 2, 'two instances listening')
  await waitFor('both applied', () => instances.every((one) => one.revalidated.length === 3))
  for (const one of instances) t.same(named(one.revalidated), ['everything', message, second])
})

t.test('a log that no longer reaches back: every kept page is checked again, with a warn line', async (t) => {
  const { instances, elsewhere } = await fleetOf(t, 2, { logLength: 2 })
  for (const tags of [['a'], ['b']]) await elsewhere.append({ paths: [], tags, from: 'elsewhere' })
  const { text } = await elsewhere.append({ paths: [], tags: ['c'], from: 'elsewhere' })
  await elsewhere.announce(text)
  await waitFor('both applied', () => instances.every((one) => everything(one.revalidated) === 2))
  for (const one of instances) {
    t.same(named(one.revalidated), ['everything', 'everything'])
    t.same(one.warnings(), ['revalidation log does not reach back: regenerating every kept page'])
  }
})

t.test('the log out of reach: the call applies to its own instance, with a warn line, and never fails', async (t) => {
  const { instances } = await fleetOf(t, 2)
  const [other, teller] = instances
  teller!.fleet.disconnect()
  t.same(await teller!.channel.tell(message), { instances: 1, alive: 1 })
  t.same(named(teller!.revalidated), ['everything', message])
  t.same(teller!.warnings(), ['revalidation applied to this instance only: redis is not connected'])
  t.same(named(other!.revalidated), ['everything'], 'the others were not told')
})

t.test('a message of another shape is ignored, with a warn line', async (t) => {
  const { instances, elsewhere } = await fleetOf(t, 2)
  for (const text of ['{"hello":1}', 'not json', '{"seq":1,"paths":"/","tags":[],"from":"x","epoch":"e"}']) {
    await elsewhere.announce(text)
  }
  await waitFor('every message heard', () => instances.every((one) => one.warnings().length === 3))
  for (const one of instances) {
    t.same(new Set(one.warnings()), new Set(['revalidation message of another shape: ignored']))
    t.same(named(one.revalidated), ['everything'], 'nothing applied')
  }
})

t.test('a log restarted empty: every instance sees the new state and checks every kept page again', async (t) => {
  const { state, instances } = await fleetOf(t, 3, { versionCheckMs: 10 })
  await instances[0]!.channel.tell(message)
  await waitFor('the others applied it', () => instances.slice(1).every((one) => one.revalidated.length === 2))
  state.restart()
  for (const one of instances) one.fleet.reconnect()
  await waitFor('every instance on the new state', () => instances.every((one) => everything(one.revalidated) === 2))
  for (const one of instances) {
    const said = one.warnings().filter((line) => line.startsWith('revalidation state in redis is new'))
    t.equal(said.length, 1, 'said once in its log')
  }
})

t.test('right after a restart, the first revalidation counts the fleet as it checks in again', async (t) => {
  const { state, instances } = await fleetOf(t, 3)
  const [teller, ...others] = instances
  state.restart()
  // The teller is back first: when it checks in, it is alone in the new state.
  teller!.fleet.reconnect()
  await waitFor('the teller on the new state', () => everything(teller!.revalidated) === 2)
  for (const one of others) one.fleet.reconnect()
  await waitFor('the others on the new state', () => others.every((one) => everything(one.revalidated) === 2))
  t.same(await teller!.channel.tell(message), { instances: 3, alive: 3 }, 'every instance, not the teller alone')
  for (const one of others) t.same(named(one.revalidated).at(-1), message, 'applied by each')
})

t.test('an instance not back yet is not counted, and regenerates every kept page when it is', async (t) => {
  const { state, instances } = await fleetOf(t, 3)
  const [teller, back, late] = instances
  state.restart()
  for (const one of [teller!, back!]) one.fleet.reconnect()
  await waitFor('two on the new state', () => [teller!, back!].every((one) => everything(one.revalidated) === 2))
  t.same(await teller!.channel.tell(message), { instances: 2, alive: 2 }, 'the instances Redis knows of')
  t.same(named(late!.revalidated), ['everything'], 'the third has heard nothing yet')
  late!.fleet.reconnect()
  await waitFor('the third on the new state', () => everything(late!.revalidated) === 2)
  t.same(named(late!.revalidated), ['everything', 'everything'], 'every page it keeps, the one named included')
})
