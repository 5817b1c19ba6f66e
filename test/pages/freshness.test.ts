import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { siteContent } from '../helpers/content.ts'
import { createPageMatcher } from '../../src/common/match.ts'
import { PageVersions } from '../../src/pages/page-versions.ts'
import type { RegenerationReport } from '../../src/pages/regeneration.ts'
import type { ServerPage } from '../../src/pages/site.ts'
import type { LoaderAnswer } from '../../src/common/page-types.ts'

/** A page with `revalidate` whose loader versions what `next` says, counting its runs. */
function versionedPage(revalidate: number | undefined) {
  const state = { runs: 0, version: 1, fail: false, hang: false, gone: false }
  const page: ServerPage = {
    id: 'versioned',
    path: '/versioned/:slug',
    kind: 'static',
    revalidate,
    head: () => ({ title: 'Versioned' }),
    load: async ({ params }): Promise<LoaderAnswer<{ version: number }>> => {
      state.runs++
      if (state.hang) await new Promise(() => undefined)
      if (state.fail) throw new Error('the source is down')
      if (state.gone) return { notFound: true }
      return { props: { version: state.version }, tags: ['all', `one:${params.slug}`] }
    },
  }
  return { page, state }
}

function setUp(revalidate: number | undefined, options: { loaderTimeoutMs?: number; retryBackoffMs?: number } = {}) {
  const { page, state } = versionedPage(revalidate)
  const clock = { now: 1_000_000 }
  const reports: RegenerationReport[] = []
  const matchPage = createPageMatcher([page])
  const versions = new PageVersions({
    deploymentId: 'd1',
    content: siteContent,
    matchPage,
    maxStaticEntries: 10,
    now: () => clock.now,
    onRegeneration: (report) => reports.push(report),
    ...options,
  })
  const match = matchPage('/versioned/a')!
  const versionOf = async () => {
    const version = versions.keptVersion(match) ?? (await versions.staticVersion(match))
    return {
      version: (JSON.parse(version.data.body) as { pageProps: { version: number } }).pageProps.version,
      entry: version,
    }
  }
  return { versions, state, clock, reports, match, matchPage, versionOf }
}

t.test(
  'revalidate N: fresh for N s, then the kept version at once (stale) and one regeneration; later the new one',
  async (t) => {
    const { versions, state, clock, reports, versionOf } = setUp(60)
    const first = await versionOf()
    t.equal(first.version, 1)
    t.notOk(versions.isStale(first.entry))
    state.version = 2
    clock.now += 59_000
    t.equal((await versionOf()).version, 1, 'still fresh at 59 s: no loader run')
    t.equal(state.runs, 1)
    clock.now += 2_000
    const stale = await Promise.all([versionOf(), versionOf(), versionOf()])
    t.ok(
      stale.every((answer) => answer.version === 1 && versions.isStale(answer.entry)),
      'stale requests get the kept version at once',
    )
    await sleep(5)
    t.equal(state.runs, 2, 'one regeneration for all of them')
    const fresh = await versionOf()
    t.equal(fresh.version, 2, 'the next request gets the new version')
    t.notOk(versions.isStale(fresh.entry))
    t.not(fresh.entry.data.etag, first.entry.data.etag, 'with a new ETag')
    t.match(reports, [{ path: '/versioned/a', reason: 'time', outcome: 'regenerated' }])
  },
)

t.test(
  'on demand by path or tag: requests wait for the one regeneration, then every one gets the new version',
  async (t) => {
    const { versions, state, reports, versionOf } = setUp(undefined)
    t.equal((await versionOf()).version, 1)
    state.version = 2
    t.same(versions.revalidate({ paths: ['/versioned/a'], tags: [] }), ['/versioned/a'])
    const after = await Promise.all([versionOf(), versionOf()])
    t.same(
      after.map((answer) => answer.version),
      [2, 2],
    )
    t.equal(state.runs, 2, 'one loader run')
    state.version = 3
    t.same(versions.revalidate({ paths: [], tags: ['one:a'] }), ['/versioned/a'])
    t.equal((await versionOf()).version, 3)
    t.same(
      versions.revalidate({ paths: ['/versioned/never-asked'], tags: ['nobody'] }),
      [],
      'nothing kept: nothing named',
    )
    t.match(reports, [{ reason: 'path' }, { reason: 'tag' }])
  },
)

t.test('a failed or timed-out regeneration keeps the last good version, retried after the back-off', async (t) => {
  const { versions, state, clock, reports, versionOf } = setUp(undefined, {
    loaderTimeoutMs: 50,
    retryBackoffMs: 5_000,
  })
  t.equal((await versionOf()).version, 1)
  state.fail = true
  versions.revalidate({ paths: ['/versioned/a'], tags: [] })
  t.equal((await versionOf()).version, 1, 'a throwing loader: the kept version')
  t.equal((await versionOf()).version, 1, 'in the back-off: no new run')
  t.equal(state.runs, 2)
  t.match(reports.at(-1), { outcome: 'failed', error: { message: 'the source is down' } })
  state.fail = false
  state.hang = true
  clock.now += 5_000
  t.equal((await versionOf()).version, 1, 'a loader that never versions: the kept version after the time-out')
  t.match(reports.at(-1), { outcome: 'failed', error: { name: 'LoaderTimeoutError' } })
  state.hang = false
  state.version = 2
  clock.now += 5_000
  t.equal((await versionOf()).version, 2, 'after the back-off, retried: the new version')
})

t.test('a page whose loader now says not found is removed: its path versions not found', async (t) => {
  const { versions, state, reports, match, versionOf } = setUp(undefined)
  await versionOf()
  state.gone = true
  versions.revalidate({ paths: ['/versioned/a'], tags: [] })
  t.same((await versions.staticVersion(match)).answer, { notFound: true })
  t.equal(versions.keptVersion(match), undefined)
  t.match(reports, [{ outcome: 'removed' }])
})

t.test(
  'marked again while its regeneration runs: once more after it, so a change read too late is not lost',
  async (t) => {
    const { versions, state, reports, matchPage, versionOf } = setUp(undefined)
    t.equal((await versionOf()).version, 1)
    state.version = 2
    let release: () => void = () => undefined
    const gate = new Promise<void>((resolve) => (release = resolve))
    // The first regeneration's loader reads version 2 and then waits; the content changes to 3 and is marked again.
    const page = matchPage('/versioned/a')!.page
    const original = page.load!
    let calls = 0
    page.load = async (context) => {
      calls++
      const answer = await original(context)
      if (calls === 1) await gate
      return answer
    }
    versions.revalidate({ paths: ['/versioned/a'], tags: [] })
    t.equal(calls, 0, 'marking loads nothing')
    const first = versionOf()
    await sleep(1)
    t.equal(calls, 1, 'the next request regenerates it')
    state.version = 3
    versions.revalidate({ paths: ['/versioned/a'], tags: [] })
    const second = versionOf()
    release()
    t.equal((await first).version, 2, 'the request before the second mark gets what its regeneration read')
    t.equal((await second).version, 3, 'the request after it waits for one more: the version read after the change')
    t.equal(calls, 2, 'two loader runs: one per mark that a request met')
    t.match(reports, [
      { reason: 'path', outcome: 'regenerated' },
      { reason: 'path', outcome: 'regenerated' },
    ])
  },
)

t.test(
  'the call an instance takes marks at once: nothing is loaded until a request asks, and that request gets the new one',
  async (t) => {
    const { versions, state, versionOf } = setUp(undefined)
    t.equal((await versionOf()).version, 1)
    t.equal(state.runs, 1)
    state.version = 2
    t.same(versions.revalidate({ paths: ['/versioned/a'], tags: [] }), ['/versioned/a'], 'the paths marked')
    t.equal(state.runs, 1, 'no loader ran for the call')
    t.match(versions.regenerationStats, { marked: 1, running: 0 })
    t.equal((await versionOf()).version, 2, 'the next request waits for its regeneration: the new version')
    t.equal(state.runs, 2)
    t.match(versions.regenerationStats, { marked: 0, running: 0, failing: 0 })
    t.same(versions.revalidate({ paths: ['/versioned/none'], tags: ['nobody'] }), [], 'nothing kept: nothing marked')
  },
)
