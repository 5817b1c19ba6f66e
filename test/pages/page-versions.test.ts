import t from 'tap'
import { siteContent } from '../helpers/content.ts'
import type { PageMatch } from '../../src/common/match.ts'
import { PageVersions } from '../../src/pages/page-versions.ts'
import type { ServerPage } from '../../src/pages/site.ts'

function countingPage(kind: 'static' | 'dynamic', answer: () => ReturnType<NonNullable<ServerPage['load']>>) {
  const page = {
    id: 'counted',
    path: '/counted/:slug',
    kind,
    head: () => ({ title: 'Counted' }),
    runs: 0,
    load() {
      page.runs++
      return answer()
    },
  }
  return page
}

const match = (page: ServerPage, slug: string): PageMatch<ServerPage> => ({ page, params: { slug } })
const noMatch = () => undefined

t.test(
  'a static page instance is loaded once for its document and its data, by concurrent first requests too',
  async (t) => {
    const page = countingPage('static', () => ({ props: { value: 1 } }))
    const versions = new PageVersions({
      deploymentId: 'd1',
      content: siteContent,
      matchPage: noMatch,
      maxStaticEntries: 10,
    })
    const entries = await Promise.all([1, 2, 3].map(() => versions.staticVersion(match(page, 'a'))))
    t.equal(page.runs, 1)
    t.ok(
      entries.every((entry) => entry === entries[0]),
      'one entry for HTML and data alike',
    )
    t.same(entries[0]!.answer, { props: { value: 1 } })
    t.same(JSON.parse(entries[0]!.data.body), { pageProps: { value: 1 }, kind: 'static', head: { title: 'Counted' } })
    t.ok(versions.isKept(entries[0]!), 'a kept instance: its document is kept too')
    t.ok(Object.isFrozen(entries[0]) && Object.isFrozen(entries[0]!.data), 'a version is frozen')
    await versions.staticVersion(match(page, 'a'))
    t.equal(page.runs, 1, 'later requests reuse it')
  },
)

t.test('the static cache is bounded by count: past it, the least recently asked-for instance goes', async (t) => {
  const page = countingPage('static', () => ({ props: {} }))
  let evicted = 0
  const versions = new PageVersions({
    deploymentId: 'd1',
    content: siteContent,
    matchPage: noMatch,
    maxStaticEntries: 2,
    onEvict: () => evicted++,
  })
  await versions.staticVersion(match(page, 'a'))
  await versions.staticVersion(match(page, 'b'))
  t.ok(versions.keptVersion(match(page, 'a')), 'a asked for again: now the most recently used')
  const c = await versions.staticVersion(match(page, 'c'))
  t.equal(page.runs, 3)
  t.ok(versions.isKept(c), 'c is kept')
  t.equal(evicted, 1, 'one pushed out, and told')
  t.equal(versions.keptVersion(match(page, 'b')), undefined, 'b, the least recently used, went')
  t.ok(versions.keptVersion(match(page, 'a')), 'a stayed')
  await versions.staticVersion(match(page, 'b'))
  t.equal(page.runs, 4, 'b is loaded again when asked for')
})

t.test('the static cache is bounded by bytes too, and a store of 0 entries keeps nothing', async (t) => {
  const big = 'x'.repeat(10_000)
  const page = countingPage('static', () => ({ props: { big } }))
  const versions = new PageVersions({
    deploymentId: 'd1',
    content: siteContent,
    matchPage: noMatch,
    maxStaticEntries: 100,
    maxStaticBytes: 100_000,
  })
  for (const id of ['a', 'b', 'c', 'd']) await versions.staticVersion(match(page, id))
  const kept = ['a', 'b', 'c', 'd'].filter((id) => versions.keptVersion(match(page, id)))
  t.same(kept, ['c', 'd'], 'about 41 kB each by the estimate: the two most recent fit in 100 kB')
  const none = new PageVersions({ deploymentId: 'd1', content: siteContent, matchPage: noMatch, maxStaticEntries: 0 })
  const once = await none.staticVersion(match(page, 'a'))
  t.notOk(none.isKept(once), 'nothing is kept: its document streams')
  t.equal(none.keptVersion(match(page, 'a')), undefined)
})

t.test('not-found versions and failed loads are not kept', async (t) => {
  let fail = true
  const page = countingPage('static', () => {
    if (fail) throw new Error('loader failed')
    return { notFound: true }
  })
  const versions = new PageVersions({
    deploymentId: 'd1',
    content: siteContent,
    matchPage: noMatch,
    maxStaticEntries: 10,
  })
  await t.rejects(versions.staticVersion(match(page, 'a')), /loader failed/)
  fail = false
  const version = await versions.staticVersion(match(page, 'a'))
  t.same(version.answer, { notFound: true })
  t.equal(version.data.statusCode, 404)
  await versions.staticVersion(match(page, 'a'))
  t.equal(page.runs, 3, 'each request ran the loader again')
  t.equal(versions.keptVersion(match(page, 'a')), undefined, 'nothing kept')
})

t.test(
  'a failed first load is kept for its back-off: the same failure at once, no loader run, then a new try',
  async (t) => {
    let now = 1_000
    let fail = true
    const page = countingPage('static', () => {
      if (fail) throw new Error('content unreadable')
      return { props: { value: 1 } }
    })
    const versions = new PageVersions({
      deploymentId: 'd1',
      content: siteContent,
      matchPage: noMatch,
      maxStaticEntries: 10,
      retryBackoffMs: 5_000,
      now: () => now,
    })
    const first = await versions.staticVersion(match(page, 'a')).catch((error: unknown) => error)
    t.match(first, /content unreadable/)
    for (let request = 0; request < 20; request++) {
      const again = await versions.staticVersion(match(page, 'a')).catch((error: unknown) => error)
      t.equal(again, first, 'the kept failure, at once')
    }
    t.equal(page.runs, 1, 'no loader run within the back-off')
    await t.rejects(versions.staticVersion(match(page, 'b')), /content unreadable/, 'another instance has its own')
    t.equal(page.runs, 2)
    fail = false
    now += 5_000
    t.same((await versions.staticVersion(match(page, 'a'))).answer, { props: { value: 1 } }, 'tried again after it')
    t.equal(page.runs, 3)
    fail = true
    await t.rejects(versions.staticVersion(match(page, 'c')), /content unreadable/)
    fail = false
    versions.revalidate('everything')
    t.same((await versions.staticVersion(match(page, 'c'))).answer, { props: { value: 1 } }, 'a revalidation ends it')
  },
)

t.test('a dynamic page is loaded per request, with its query; a static one never sees the query', async (t) => {
  const queries: unknown[] = []
  const page = {
    ...countingPage('dynamic', () => ({ props: {} })),
    load: (context: { query: unknown }) => (queries.push(context.query), { props: {} }),
  }
  const versions = new PageVersions({
    deploymentId: 'd1',
    content: siteContent,
    matchPage: noMatch,
    maxStaticEntries: 10,
  })
  await versions.load(page, {}, { q: '1' })
  await versions.load(page, {}, { q: '2' })
  t.same(queries, [{ q: '1' }, { q: '2' }])
  const staticPage = { ...page, kind: 'static' as const }
  await versions.staticVersion(match(staticPage, 'a'))
  t.same(queries[2], {}, 'no query reaches a kept answer')
})

t.test('a redirect is kept and sent as data', async (t) => {
  const page = countingPage('static', () => ({ redirect: { destination: '/elsewhere', permanent: true } }))
  const versions = new PageVersions({
    deploymentId: 'd1',
    content: siteContent,
    matchPage: noMatch,
    maxStaticEntries: 10,
  })
  const version = await versions.staticVersion(match(page, 'a'))
  t.same(JSON.parse(version.data.body), { redirect: { destination: '/elsewhere', permanent: true } })
  t.equal(versions.keptVersion(match(page, 'a')), version, 'kept')
})

t.test(
  'keptVersion: the version once its loader run has ended, with a page kept; never a pending, failed or not-found one',
  async (t) => {
    let answer: () => ReturnType<NonNullable<ServerPage['load']>> = () => ({ props: { value: 1 } })
    const page = countingPage('static', () => answer())
    const versions = new PageVersions({
      deploymentId: 'd1',
      content: siteContent,
      matchPage: noMatch,
      maxStaticEntries: 1,
    })
    t.equal(versions.keptVersion(match(page, 'a')), undefined, 'nothing before the first request')
    const pending = versions.staticVersion(match(page, 'a'))
    t.equal(versions.keptVersion(match(page, 'a')), undefined, 'nor while its loader runs')
    const version = await pending
    t.equal(versions.keptVersion(match(page, 'a')), version, 'the same version once it has run')
    t.equal(page.runs, 1)
    await versions.staticVersion(match(page, 'b'))
    t.ok(versions.keptVersion(match(page, 'b')), 'another instance past the bound is kept in its place')
    t.equal(versions.keptVersion(match(page, 'a')), undefined, 'and the least recently used one went')
    answer = () => ({ notFound: true })
    const other = new PageVersions({
      deploymentId: 'd1',
      content: siteContent,
      matchPage: noMatch,
      maxStaticEntries: 10,
    })
    await other.staticVersion(match(page, 'c'))
    t.equal(other.keptVersion(match(page, 'c')), undefined, 'a not-found answer is not kept')
    answer = () => {
      throw new Error('loader failed')
    }
    await t.rejects(other.staticVersion(match(page, 'd')), /loader failed/)
    t.equal(other.keptVersion(match(page, 'd')), undefined, 'a failed run is not kept')
  },
)
