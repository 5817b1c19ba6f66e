import t from 'tap'
import { siteContent } from '../helpers/content.ts'
import type { PageMatch } from '../../site/match.ts'
import { PageAnswers } from '../../src/pages/answers.ts'
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

t.test('a static page instance is loaded once for its document and its data, by concurrent first requests too', async (t) => {
  const page = countingPage('static', () => ({ props: { value: 1 } }))
  const answers = new PageAnswers({ deploymentId: 'd1', content: siteContent, maxStaticEntries: 10 })
  const entries = await Promise.all([1, 2, 3].map(() => answers.staticEntry(match(page, 'a'))))
  t.equal(page.runs, 1)
  t.ok(entries.every((entry) => entry === entries[0]), 'one entry for HTML and data alike')
  t.same(entries[0]!.answer, { props: { value: 1 } })
  t.same(JSON.parse(entries[0]!.data.body), { pageProps: { value: 1 }, kind: 'static' })
  t.ok(entries[0]!.document, 'a kept instance has a slot for its document')
  await answers.staticEntry(match(page, 'a'))
  t.equal(page.runs, 1, 'later requests reuse it')
})

t.test('the static cache is bounded: past it, instances are loaded per request and not kept', async (t) => {
  const page = countingPage('static', () => ({ props: {} }))
  const answers = new PageAnswers({ deploymentId: 'd1', content: siteContent, maxStaticEntries: 1 })
  await answers.staticEntry(match(page, 'a'))
  const beyond = await answers.staticEntry(match(page, 'b'))
  await answers.staticEntry(match(page, 'b'))
  t.equal(page.runs, 3, 'b is loaded on each request')
  t.equal(beyond.document, undefined, 'and its document streams')
  t.ok(answers.keptEntry(match(page, 'a')), 'a is kept')
  t.equal(answers.keptEntry(match(page, 'b')), undefined, 'b is not')
  await answers.staticEntry(match(page, 'a'))
  t.equal(page.runs, 3, 'a stays kept')
})

t.test('not-found answers and failed loads are not kept', async (t) => {
  let fail = true
  const page = countingPage('static', () => {
    if (fail) throw new Error('loader failed')
    return { notFound: true }
  })
  const answers = new PageAnswers({ deploymentId: 'd1', content: siteContent, maxStaticEntries: 10 })
  await t.rejects(answers.staticEntry(match(page, 'a')), /loader failed/)
  fail = false
  const entry = await answers.staticEntry(match(page, 'a'))
  t.same(entry.answer, { notFound: true })
  t.equal(entry.data.statusCode, 404)
  await answers.staticEntry(match(page, 'a'))
  t.equal(page.runs, 3, 'each request ran the loader again')
  t.equal(answers.keptEntry(match(page, 'a')), undefined, 'nothing kept')
})

t.test('a dynamic page is loaded per request, with its query; a static one never sees the query', async (t) => {
  const queries: unknown[] = []
  const page = { ...countingPage('dynamic', () => ({ props: {} })), load: (context: { query: unknown }) => (queries.push(context.query), { props: {} }) }
  const answers = new PageAnswers({ deploymentId: 'd1', content: siteContent, maxStaticEntries: 10 })
  await answers.load(page, {}, { q: '1' })
  await answers.load(page, {}, { q: '2' })
  t.same(queries, [{ q: '1' }, { q: '2' }])
  const staticPage = { ...page, kind: 'static' as const }
  await answers.staticEntry(match(staticPage, 'a'))
  t.same(queries[2], {}, 'no query reaches a kept answer')
})

t.test('a redirect is kept and sent as data', async (t) => {
  const page = countingPage('static', () => ({ redirect: { destination: '/elsewhere', permanent: true } }))
  const answers = new PageAnswers({ deploymentId: 'd1', content: siteContent, maxStaticEntries: 10 })
  const entry = await answers.staticEntry(match(page, 'a'))
  t.same(JSON.parse(entry.data.body), { redirect: { destination: '/elsewhere', permanent: true } })
  t.equal(answers.keptEntry(match(page, 'a')), entry, 'kept')
})

t.test('keptEntry: the entry once its loader run has ended, with a page kept; never a pending, failed or not-found one', async (t) => {
  let answer: () => ReturnType<NonNullable<ServerPage['load']>> = () => ({ props: { value: 1 } })
  const page = countingPage('static', () => answer())
  const answers = new PageAnswers({ deploymentId: 'd1', content: siteContent, maxStaticEntries: 1 })
  t.equal(answers.keptEntry(match(page, 'a')), undefined, 'nothing before the first request')
  const pending = answers.staticEntry(match(page, 'a'))
  t.equal(answers.keptEntry(match(page, 'a')), undefined, 'nor while its loader runs')
  const entry = await pending
  t.equal(answers.keptEntry(match(page, 'a')), entry, 'the same entry once it has run')
  t.equal(page.runs, 1)
  await answers.staticEntry(match(page, 'b'))
  t.equal(answers.keptEntry(match(page, 'b')), undefined, 'an instance past the bound is not kept')
  answer = () => ({ notFound: true })
  const other = new PageAnswers({ deploymentId: 'd1', content: siteContent, maxStaticEntries: 10 })
  await other.staticEntry(match(page, 'c'))
  t.equal(other.keptEntry(match(page, 'c')), undefined, 'a not-found answer is not kept')
  answer = () => {
    throw new Error('loader failed')
  }
  await t.rejects(other.staticEntry(match(page, 'd')), /loader failed/)
  t.equal(other.keptEntry(match(page, 'd')), undefined, 'a failed run is not kept')
})
