/**
 * A content change reaching an open tab, in every engine: the server reads a copy of the content folder
 * (CONTENT_DIR) and takes revalidations (REVALIDATE_TOKEN). A guide's Markdown is edited and a guide added while a
 * tab shows them; `POST /api/revalidate` with the tag `guides`; the same tab, through the client router and with no
 * new document, lists the new guide and shows the new sentence: a visit shows the kept data and asks the server again
 * behind it, the next shows the change. A guide removed
 * then revalidated: following its link shows the 404 page. docs/content.md "Revalidation on demand".
 */
import t, { type Test } from 'tap'
import { cp, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { revalidation } from '../../../config/content.ts'
import { router as timings } from '../../../config/router.ts'
import { siteContent } from '../../helpers/content.ts'
import { timeouts } from '../harness.ts'
import { advanceClockBy, heldClock, markWindow, readMark } from '../page-probes.ts'
import { eventually, startJourneys, type JourneySession } from '../journey.ts'
import { contentItemPage, contentLink, contentPage, contentRevalidateS } from '../test-pages.ts'

const token = 'a-journey-token-of-some-length-0123456789'
const contentDir = await mkdtemp(path.join(tmpdir(), 'courier-e2e-content-'))
t.teardown(() => rm(contentDir, { recursive: true, force: true }))
await cp(siteContent.dir, contentDir, { recursive: true })
const guides = await siteContent.guides()

const suite = await startJourneys(t, { COURIER_TEST_ROUTES: 'true', CONTENT_DIR: contentDir, REVALIDATE_TOKEN: token })
const dataPrefix = `/_next/data/${suite.deploymentId}`

function documentRequests(session: JourneySession) {
  return session.requests().filter((request) => request.dest === 'document')
}

/** Page-data requests for one page (`/__test/guides/x.json`), prefetches included. */
function dataRequests(session: JourneySession, page: string) {
  return session.requests().filter((request) => request.url.split('?')[0] === `${suite.origin}${dataPrefix}${page}`)
}

/** `POST /api/revalidate` as a CMS's webhook would call it: its status and body. */
async function revalidate(body: { paths?: string[]; tags?: string[] }) {
  const response = await fetch(`${suite.origin}${revalidation.path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as unknown }
}

/** The titles of the guides the page lists. */
function listedTitles(session: JourneySession): Promise<string[]> {
  return session.evaluate(
    () => [...document.querySelectorAll('main .content-list li > a')].map((link) => link.textContent?.trim() ?? ''),
    null,
  )
}

function mainText(session: JourneySession): Promise<string> {
  return session.evaluate(() => document.querySelector('main')?.textContent ?? '', null)
}

/**
 * Opens the content list with the held clock (test/e2e/page-probes.ts), hydrated and marked: the mark survives client
 * navigations only. The router's kept data ages only when the test moves the clock, so what it keeps and asks again
 * is what each step says, however slow the machine (on the real clock, a loaded run outlived the pages' `revalidate`
 * between two steps, and the tab no longer kept what the test looks at).
 */
async function openList(t: Test): Promise<JourneySession> {
  const session = await suite.open(t)
  await session.tab.addInitScript(heldClock)
  await session.goto(contentPage.path)
  t.ok(await session.waitForHydration(), `${contentPage.path} hydrated`)
  await session.evaluate(markWindow, null)
  return session
}

/** Kept data of a page with `revalidate` this old is asked for again behind a navigation (docs/page-data-and-router.md). */
function outliveRefreshAge(session: JourneySession) {
  return session.evaluate(advanceClockBy, timings.revalidatingRefreshAfterS * 1000)
}

/** A content page keeps its data at most its `revalidate` (docs/page-data-and-router.md): past it, it asks the server. */
function outliveRevalidate(session: JourneySession) {
  return session.evaluate(advanceClockBy, contentRevalidateS * 1000)
}

/**
 * Until `count` data GETs for a page have been answered 200 and read whole by the tab (its resource timing entries):
 * data asked for behind a navigation is then what the router keeps for the next visit.
 */
function waitForData(session: JourneySession, page: string, count = 1): Promise<boolean> {
  const url = `${suite.origin}${dataPrefix}${page}`
  const readWhole = (wanted: { url: string; count: number }) =>
    performance.getEntriesByType('resource').filter((entry) => entry.name.split('?')[0] === wanted.url).length >=
    wanted.count
  return eventually(
    async () =>
      dataRequests(session, page).filter((request) => request.status === 200).length >= count &&
      (await session.evaluate(readWhole, { url, count })),
    timeouts.navigationMs,
  )
}

const listLink = 'main a[data-testid="content-list-link"]'

t.test(
  'a guide edited and one added, revalidated by tag: the open tab shows both through the client router',
  async (t) => {
    const edited = guides[0]!
    const added = {
      slug: 'written-while-running',
      title: 'Written while running',
      summary: 'A guide added to the folder while the server ran.',
    }
    const sentence = 'This sentence was written while the site was running.'
    const session = await openList(t)
    t.notOk((await listedTitles(session)).includes(added.title), 'the new guide is not listed yet')

    await session.tab.click(contentLink(edited))
    t.ok(await session.waitForHeading(edited.title), 'the guide is shown')
    const before = await mainText(session)
    t.ok(before.includes(edited.summary), 'with its summary')
    t.ok(before.includes(edited.sections[0]!.heading), 'and its first section')
    t.notOk(before.includes(sentence), 'not the sentence yet')
    const editedPage = contentItemPage(edited)
    const firstData = dataRequests(session, editedPage.dataPath).find((request) => request.status === 200)
    t.ok(firstData?.responseHeaders?.etag, 'its page data came with an ETag')

    const file = path.join(contentDir, 'guides', `${edited.slug}.md`)
    await writeFile(file, `${(await readFile(file, 'utf8')).trimEnd()}\n\n${sentence}\n`)
    await writeFile(
      path.join(contentDir, 'guides', `${added.slug}.md`),
      `---\ntitle: "${added.title}"\nsummary: "${added.summary}"\norder: ${guides.at(-1)!.order + 1}\n---\n\n## Fresh\n\nIts only section.\n`,
    )
    const told = await revalidate({ tags: ['guides'] })
    t.equal(told.status, 200, 'revalidated')
    t.match(told.body, { revalidated: { tags: ['guides'] }, instances: 1 }, 'the tag named, this instance told')

    // The router shows what it holds at once, and, the data being older than a few seconds, asks the server again
    // behind it: the visit after shows the change.
    await outliveRefreshAge(session)
    await session.tab.back()
    t.ok(await session.waitForHeading(contentPage.heading), 'back: the guides')
    t.notOk((await listedTitles(session)).includes(added.title), 'as the tab kept them: no new guide yet')
    t.ok(await waitForData(session, contentPage.dataPath), 'the list’s data asked for again behind it')
    await session.tab.forward()
    t.ok(await session.waitForHeading(edited.title), 'forward: the guide')
    t.notOk((await mainText(session)).includes(sentence), 'as the tab kept it')
    t.ok(await waitForData(session, editedPage.dataPath, 2), 'the guide’s data asked for again behind it')

    await session.tab.click(listLink)
    t.ok(await session.waitForHeading(contentPage.heading), 'the guides again')
    t.ok(
      await session.waitFor(
        (title) =>
          [...document.querySelectorAll('main .content-list li > a')].some(
            (link) => link.textContent?.trim() === title,
          ),
        added.title,
      ),
      'the new guide is listed',
    )
    t.equal((await listedTitles(session)).at(-1), added.title, 'last, by its order')
    const listData = dataRequests(session, contentPage.dataPath)
    t.same(
      listData.map((request) => request.status),
      [200],
      'one data GET for the list, the one behind the first visit',
    )
    t.equal(listData[0]?.responseHeaders?.['x-deployment-id'], suite.deploymentId, 'from the same deployment')

    await session.tab.click(contentLink(edited))
    t.ok(await session.waitForHeading(edited.title), 'the edited guide')
    t.ok(
      await session.waitFor((text) => document.querySelector('main')?.textContent?.includes(text) === true, sentence),
      'shows the new sentence',
    )
    const lastData = dataRequests(session, editedPage.dataPath).findLast((request) => request.status === 200)
    t.not(lastData?.responseHeaders?.etag, firstData?.responseHeaders?.etag, 'its page data has a new ETag')
    t.equal(lastData?.responseHeaders?.['x-deployment-id'], suite.deploymentId, 'the same deployment id')

    await session.tab.click(listLink)
    t.ok(await session.waitForHeading(contentPage.heading), 'back to the guides')
    await session.tab.click(contentLink(added))
    t.ok(await session.waitForHeading(added.title), 'the new guide opens')
    t.ok((await mainText(session)).includes('Its only section.'), 'with its text')

    t.equal(await session.evaluate(readMark, null), 'still here', 'every navigation was a client navigation')
    t.same(
      documentRequests(session).map((request) => new URL(request.url).pathname),
      [contentPage.path],
      'one document load in all',
    )
    t.same(await session.consoleErrors(), [], 'no console error')
    const regenerated = suite.serverLogs().filter((line) => line.msg === 'page regenerated' && line.reason === 'tag')
    t.ok(
      regenerated.some((line) => line.path === editedPage.path && line.outcome === 'regenerated'),
      'the server regenerated the guide',
    )
  },
)

t.test('a guide removed, revalidated by tag: following its link shows the 404 page', async (t) => {
  const removed = guides.at(-1)!
  const removedPage = contentItemPage(removed)
  const session = await openList(t)
  t.ok((await listedTitles(session)).includes(removed.title), 'the guide is listed')
  // The server keeps the guide's page: the revalidation marks it, and the next request for it regenerates it and
  // finds it gone.
  const kept = await fetch(`${suite.origin}${removedPage.path}`)
  t.equal(kept.status, 200, 'served before')
  await kept.text()

  await unlink(path.join(contentDir, 'guides', `${removed.slug}.md`))
  const told = await revalidate({ tags: ['guides'] })
  t.equal(told.status, 200, 'revalidated')

  // The tab still lists it, and may hold the guide's prefetched data: past the page's `revalidate` it asks again.
  await outliveRevalidate(session)
  await session.tab.click(contentLink(removed))
  const gone = await suite.serverLogLine((line) => line.msg === 'page regenerated' && line.path === removedPage.path)
  t.match(gone, { reason: 'tag', outcome: 'removed' }, 'asked for, the server regenerated it and removed its page')
  t.ok(
    await session.waitFor(
      () => document.querySelector('main h1 .error-status')?.textContent?.trim() === '404',
      null,
      15_000,
    ),
    'the 404 page is shown',
  )
  const shown = await session.evaluate(
    () => ({
      path: location.pathname,
      title: document.title,
      heading: document.querySelector('main h1 .error-title')?.textContent?.trim(),
    }),
    null,
  )
  t.same(
    shown,
    { path: removedPage.path, title: '404: This page could not be found', heading: 'This page could not be found' },
    'the 404 page of the guide’s path',
  )
  t.equal(dataRequests(session, removedPage.dataPath).at(-1)?.status, 404, 'its page data: 404')
  // A page the server does not find is left to a full load, which the server answers with its 404 document.
  t.same(
    documentRequests(session).map((request) => [new URL(request.url).pathname, request.status]),
    [
      [contentPage.path, 200],
      [removedPage.path, 404],
    ],
    'the 404 document',
  )
  t.equal(await session.evaluate(readMark, null), null, 'a new document')
  t.same(
    (await session.consoleErrors()).filter((text) => !/\b404\b/.test(text)),
    [],
    'no console error but the engine’s own lines about the 404s',
  )
})
