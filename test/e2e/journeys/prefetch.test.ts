/**
 * The prefetch queue's edges in every engine: static data prefetched stays fresh 300 s (a page with `revalidate: N`,
 * N s) and dynamic data is fetched at every navigation, a prefetch that failed is not kept (the navigation fetches
 * again), no prefetch at all under Save-Data, and of two rapid navigations only the last renders, with nothing
 * shown or logged.
 */
import t from 'tap'
import { advanceClockBy, heldClock, markWindow, readMark, recordHeadings } from '../page-probes.ts'
import { router as timings } from '../../../config/router.ts'
import { guides } from '../../helpers/content.ts'
import { eventually, sleep, startJourneys, type JourneySession } from '../journey.ts'
import {
  contentItemPage,
  contentLink,
  contentPage,
  dynamicPage,
  filterPage,
  isChunkOfAnotherPage,
  staticPage,
  testNavLink,
} from '../test-pages.ts'

const suite = await startJourneys(t, { COURIER_TEST_ROUTES: 'true' })
const dataPrefix = `/_next/data/${suite.deploymentId}`
const serverError = {
  status: 500,
  headers: { 'content-type': 'application/json', 'x-deployment-id': suite.deploymentId },
  body: '{"statusCode":500}',
}

function dataRequests(session: JourneySession, page: string) {
  return session.requests().filter((request) => request.url.split('?')[0] === `${suite.origin}${dataPrefix}${page}`)
}

async function mark(session: JourneySession) {
  await session.evaluate(markWindow, null)
}

function marker(session: JourneySession): Promise<string | null> {
  return session.evaluate(readMark, null)
}

function advanceClock(session: JourneySession, seconds: number) {
  return session.evaluate(advanceClockBy, seconds * 1000)
}

t.test(
  'static data prefetched stays fresh 300 s, a page with revalidate N for N s; dynamic data is fetched at every navigation',
  async (t) => {
    const session = await suite.open(t)
    await session.tab.addInitScript(heldClock)
    await session.goto(contentPage.path)
    t.ok(await session.waitForHydration(), 'hydrated')
    await mark(session)
    // A static page without revalidate, linked from the test pages' navigation.
    const linked = staticPage
    const showsLinked = () => session.waitFor((title) => document.title === title, linked.title)
    t.ok(
      await eventually(() => dataRequests(session, linked.dataPath).length >= 1),
      `${linked.path}, linked from the navigation, is prefetched`,
    )
    const guide = guides[0]!
    const path = contentItemPage(guide).dataPath
    t.ok(await eventually(() => dataRequests(session, path).length >= 1), 'the first guide, in view, is prefetched')
    const link = contentLink(guide)

    await advanceClock(session, 290)
    await session.tab.click(testNavLink(linked.path))
    t.ok(await showsLinked(), `${linked.path} is shown`)
    t.equal(dataRequests(session, linked.dataPath).length, 1, 'prefetched 290 s ago: not fetched again')
    await session.tab.back()
    t.ok(await session.waitForHeading(contentPage.heading), 'back to the list')
    await advanceClock(session, 20)
    await session.tab.click(testNavLink(linked.path))
    t.ok(await showsLinked(), `${linked.path} again`)
    t.equal(dataRequests(session, linked.dataPath).length, 2, 'after 300 s it is')
    await session.tab.back()
    t.ok(await session.waitForHeading(contentPage.heading), 'back to the list')

    // The guide's page declares revalidate 60: its data prefetched 310 s ago is past it, and fetched at the click.
    await session.tab.click(link)
    t.ok(await session.waitForHeading(guide.title), 'the guide is shown')
    t.ok(dataRequests(session, path).length >= 2, 'a page with revalidate: past it, fetched again')
    const fetched = dataRequests(session, path).length
    await session.tab.back()
    t.ok(await session.waitForHeading(contentPage.heading), 'back to the list')
    await session.tab.click(link)
    t.ok(await session.waitForHeading(guide.title), 'the guide again')
    t.equal(dataRequests(session, path).length, fetched, 'seconds later: the kept data, nothing asked')

    for (const shown of [dynamicPage, filterPage, dynamicPage]) {
      await session.tab.click(testNavLink(shown.path))
      t.ok(await session.waitForHeading(shown.heading), `${shown.heading} shown`)
    }
    t.equal(dataRequests(session, dynamicPage.dataPath).length, 2, 'dynamic data: one GET per navigation')
    t.equal(await marker(session), 'still here', 'all client navigations')
    t.same(await session.consoleErrors(), [], 'no console error')
  },
)

t.test('a failed prefetch is not kept: the navigation fetches again', async (t) => {
  const session = await suite.open(t)
  session.route(
    (path) => path.startsWith(`${dataPrefix}${filterPage.dataPath}`),
    (attempt) => (attempt <= timings.dataFetchAttempts ? { respond: serverError } : 'pass'),
  )
  await session.goto(staticPage.path)
  t.ok(await session.waitForHydration(), 'hydrated')
  await mark(session)
  t.ok(
    await eventually(() => dataRequests(session, filterPage.dataPath).length >= timings.dataFetchAttempts),
    'the filter page’s link, in view, was prefetched and failed',
  )
  t.ok(await session.prefetchQuiet(), 'the router has no prefetch pending')
  t.equal(dataRequests(session, filterPage.dataPath).length, timings.dataFetchAttempts, 'no retry beyond the attempts')
  await session.tab.click(testNavLink(filterPage.path))
  t.ok(await session.waitForHeading(filterPage.heading), 'the filter page is shown')
  t.equal(
    dataRequests(session, filterPage.dataPath).length,
    timings.dataFetchAttempts + 1,
    'fetched again at navigation',
  )
  t.equal(await marker(session), 'still here', 'a client navigation')
  t.notOk(
    (await session.consoleErrors()).some((text) => /Failed to load page data/.test(text)),
    'a failed prefetch is not reported',
  )
})

t.test('no prefetch under Save-Data', async (t) => {
  const session = await suite.open(t)
  await session.tab.addInitScript(
    `Object.defineProperty(navigator, 'connection', { value: { saveData: true }, configurable: true })`,
  )
  await session.goto('/__test/links?layout=grid')
  t.ok(await session.waitForHydration(), 'hydrated')
  t.equal(
    await session.evaluate(
      () => (navigator as Navigator & { connection?: { saveData?: boolean } }).connection?.saveData ?? null,
      null,
    ),
    true,
    'the page sees Save-Data',
  )
  await session.evaluate(() => {
    document
      .querySelectorAll('.test-links a')[3]!
      .dispatchEvent(new MouseEvent('mouseover', { bubbles: true, relatedTarget: document.body }))
  }, null)
  t.ok(await session.prefetchQuiet(), 'the router has no prefetch pending')
  const speculative = session
    .requests()
    .filter((request) => request.url.includes(dataPrefix) || isChunkOfAnotherPage(request.url, 'test-links'))
  t.same(
    speculative.map((request) => request.url),
    [],
    'neither data nor code, in view or hovered',
  )
  await session.tab.click('.test-links li:first-child a')
  t.ok(await session.waitForHeading(guides[0]!.title), 'navigation still works')
  t.equal(dataRequests(session, contentItemPage(guides[0]!).dataPath).length, 1, 'its data fetched once, at navigation')
})

t.test('two rapid navigations: only the last renders, nothing is shown or logged', async (t) => {
  const session = await suite.open(t)
  session.route(
    (path) => path.startsWith(`${dataPrefix}${dynamicPage.dataPath}`),
    () => ({ delayMs: 1000 }),
  )
  await session.goto(staticPage.path)
  t.ok(await session.waitForHydration(), 'hydrated')
  await mark(session)
  await session.evaluate(recordHeadings, null)
  await session.tab.click(testNavLink(dynamicPage.path))
  await session.tab.click(testNavLink(filterPage.path))
  t.ok(await session.waitForHeading(filterPage.heading), 'the filter page is shown')
  await sleep(1500)
  const after = await session.evaluate(
    () => ({
      heading: document.querySelector('main h1')?.textContent?.trim(),
      path: location.pathname,
      headings: (window as Window & { courierHeadings?: string[] }).courierHeadings,
      errorScreens: document.querySelectorAll('.error-screen').length,
    }),
    null,
  )
  t.same(
    after,
    {
      heading: filterPage.heading,
      path: filterPage.path,
      headings: [filterPage.heading],
      errorScreens: 0,
    },
    'the last navigation stays; the cancelled page never rendered; no error shown',
  )
  t.equal(await marker(session), 'still here')
  t.same(await session.consoleErrors(), [], 'nothing logged')
})
