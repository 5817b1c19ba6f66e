/**
 * The fleet's page logic (src/shared-state/shared-pages.ts) without Redis: two instances, each with its own page
 * versions, share one store in memory (src/shared-state/memory-page-store.ts), the interface the Redis store
 * implements. The scale suite runs the same logic against a real redis-server (test/scale/revalidation.test.ts).
 */
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { siteContent } from '../helpers/content.ts'
import { createPageMatcher } from '../../src/common/match.ts'
import type { LoaderAnswer } from '../../src/common/page-types.ts'
import { PageVersions } from '../../src/pages/page-versions.ts'
import type { RegenerationReport } from '../../src/pages/regeneration.ts'
import type { ServerPage } from '../../src/pages/site.ts'
import { MemoryPageStore } from '../helpers/memory-page-store.ts'
import { SharedPages } from '../../src/shared-state/shared-pages.ts'
import { pino } from 'pino'
import { sharedPages } from '../../config/content.ts'
import { pageKey } from '../../src/pages/page-version.ts'
import { captureLogs } from '../helpers/app.ts'

/** A fleet of `size` instances over one store; the page's loader answers `state.version` and counts its runs. */
function fleetOf(size: number, options: { revalidate?: number; logLength?: number } = {}) {
  const state = { runs: 0, version: 1, gone: false, gate: Promise.resolve() }
  const page: ServerPage = {
    id: 'versioned',
    path: '/versioned/:slug',
    kind: 'static',
    revalidate: options.revalidate,
    head: () => ({ title: 'Versioned' }),
    load: async ({ params }): Promise<LoaderAnswer<{ version: number }>> => {
      state.runs++
      const version = state.version
      await state.gate
      if (state.gone) return { notFound: true }
      return { props: { version }, tags: ['all', `one:${params.slug}`] }
    },
  }
  const store = new MemoryPageStore(options.logLength === undefined ? {} : { logLength: options.logLength })
  const clock = { now: 1_000_000 }
  const { stream, lines: logs } = captureLogs()
  const logger = pino({ level: 'debug' }, stream)
  const matchPage = createPageMatcher([page])
  const match = matchPage('/versioned/a')!
  const instances = Array.from({ length: size }, () => {
    const reports: RegenerationReport[] = []
    const versions = new PageVersions({
      deploymentId: 'd1',
      content: siteContent,
      matchPage,
      maxStaticEntries: 10,
      share: new SharedPages(store, { log: logger, now: () => clock.now }),
      onRegeneration: (report) => reports.push(report),
      now: () => clock.now,
    })
    const served = async () => {
      const version = versions.keptVersion(match) ?? (await versions.staticVersion(match))
      return {
        version: (JSON.parse(version.data.body) as { pageProps: { version: number } }).pageProps.version,
        etag: version.data.etag,
      }
    }
    return { versions, reports, served }
  })
  return { instances, store, state, clock, logs, key: pageKey(match) }
}

t.test("one loader run for the fleet: the second instance takes the first one's version, the same bytes", async (t) => {
  const { instances, state } = fleetOf(2)
  const [a, b] = instances
  const first = await a!.served()
  const second = await b!.served()
  t.equal(state.runs, 1)
  t.same(second, first, 'the same version and ETag')
})

t.test('concurrent first requests on two instances: one loader run, the other waits for its version', async (t) => {
  const { instances, state } = fleetOf(2)
  let release: () => void = () => undefined
  state.gate = new Promise<void>((resolve) => (release = resolve))
  const both = Promise.all(instances.map((instance) => instance.served()))
  await sleep(5)
  release()
  const [first, second] = await both
  t.equal(state.runs, 1)
  t.same(first, second)
})

t.test(
  'a revalidation numbered after a version was loaded names it: no instance takes it, one loads the new',
  async (t) => {
    const { instances, store, state } = fleetOf(2)
    const [a, b] = instances
    await a!.served()
    await b!.served()
    state.version = 2
    const message = { paths: ['/versioned//a/'], tags: [] }
    store.append(message)
    t.same(a!.versions.revalidate(message), ['/versioned/a'], 'any spelling of the path names the instance')
    t.equal((await a!.served()).version, 2, 'the instance that took the call loaded the new version')
    b!.versions.revalidate(message)
    t.equal((await b!.served()).version, 2, 'the other one takes it')
    t.equal(state.runs, 2, 'one loader run for the revalidation, fleet-wide')
    t.match(a!.reports, [{ reason: 'path', loaderRan: true, outcome: 'regenerated' }])
    t.match(b!.reports, [{ reason: 'path', loaderRan: false, outcome: 'regenerated' }])
    store.append({ paths: [], tags: ['one:a'] })
    state.version = 3
    b!.versions.revalidate({ paths: [], tags: ['one:a'] })
    t.equal((await b!.served()).version, 3, 'a tag of the version names it too')
    t.equal(state.runs, 3)
  },
)

t.test(
  'a version no instance wrote (from the future, or numbered past the newest revalidation): ignored, made again, one warn line',
  async (t) => {
    for (const forged of [
      { seq: 1_000_000, generatedAt: 1_000_000, reason: 'seq' },
      { seq: 0, generatedAt: 1_000_000 + sharedPages.clockSkewMs + 1, reason: 'future' },
    ]) {
      const { instances, store, state, logs, key } = fleetOf(2)
      const [a, b] = instances
      store.append({ paths: ['/versioned/elsewhere'], tags: [] })
      const { seq, generatedAt } = forged
      await store.write(key, { answer: { props: { version: 666 } }, tags: [], seq, generatedAt })
      t.equal((await a!.served()).version, 1, `${forged.reason}: the loader's version is served`)
      t.equal(state.runs, 1)
      t.equal((await b!.served()).version, 1, 'and the others take it: it overwrote the planted one')
      t.equal(state.runs, 1)
      const warned = logs().filter((line) => line.level === 40)
      t.match(warned, [{ msg: 'shared page version ignored: not one the fleet made', reason: forged.reason, key }])
    }
    const { instances, store, state, logs, key } = fleetOf(1)
    const withinSkew = 1_000_000 + sharedPages.clockSkewMs
    await store.write(key, { answer: { props: { version: 7 } }, tags: [], seq: 0, generatedAt: withinSkew })
    t.equal((await instances[0]!.served()).version, 7, 'a clock ahead by the skew allowance is a clock, not a forgery')
    t.equal(state.runs, 0)
    t.same(logs(), [])
  },
)

t.test('when the log no longer reaches back to a version, it is not taken: the loader runs', async (t) => {
  const { instances, store, state } = fleetOf(2, { logLength: 1 })
  const [a, b] = instances
  await a!.served()
  store.append({ paths: ['/versioned/elsewhere'], tags: [] })
  store.append({ paths: ['/versioned/elsewhere'], tags: [] })
  await b!.served()
  t.equal(state.runs, 2, 'two revalidations behind and only one logged: the kept version cannot be trusted')
})

t.test('a revalidation that names another page leaves the version to be taken', async (t) => {
  const { instances, store, state } = fleetOf(2)
  const [a, b] = instances
  await a!.served()
  store.append({ paths: ['/versioned/b'], tags: ['one:b'] })
  await b!.served()
  t.equal(state.runs, 1)
})

t.test('past its revalidate time, a version is not taken by an instance that wants a newer one', async (t) => {
  const { instances, state, clock } = fleetOf(2, { revalidate: 60 })
  const [a, b] = instances
  await a!.served()
  clock.now += 61_000
  state.version = 2
  t.equal((await b!.served()).version, 2, 'the second instance loads its own: the shared one is stale')
  t.equal(state.runs, 2)
  t.equal((await a!.served()).version, 1, 'the first serves its stale version while it regenerates')
  await sleep(5)
  t.equal((await a!.served()).version, 2, 'then takes the newer version the fleet has')
  t.equal(state.runs, 2, 'without running the loader')
  t.match(a!.reports, [{ reason: 'time', loaderRan: false, outcome: 'regenerated' }])
})

t.test('a page that is not found is not shared: each instance asks its loader', async (t) => {
  const { instances, state } = fleetOf(2)
  state.gone = true
  for (const instance of instances) await instance.served().catch(() => undefined)
  t.equal(state.runs, 2)
})

t.test('a store that cannot answer: each instance loads its own and serves it', async (t) => {
  const { instances, store, state } = fleetOf(2)
  store.available = false
  const answers = await Promise.all(instances.map((instance) => instance.served()))
  t.equal(state.runs, 2)
  t.same(
    answers.map((answer) => answer.version),
    [1, 1],
  )
})
