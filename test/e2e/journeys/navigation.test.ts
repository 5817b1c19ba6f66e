/**
 * Client navigation in every engine: one page-data GET and no document load (to a partly prerendered page too, with
 * both kinds of its data), prefetch within 200 px of the viewport (not further) and on hover, back and forward with the
 * scroll position restored.
 */
import t, { type Test } from 'tap'
import { markWindow, readMark } from '../page-probes.ts'
import { router as timings } from '../../../config/router.ts'
import { guides } from '../../helpers/content.ts'
import { eventually, startJourneys, type JourneySession } from '../journey.ts'
import { contentItemPage, contentPage, dynamicPage, partialPage, staticPage, testNavLink } from '../test-pages.ts'

const suite = await startJourneys(t, { COURIER_TEST_ROUTES: 'true' })
const dataPrefix = `/_next/data/${suite.deploymentId}`
const near = contentItemPage(guides[0]!).dataPath
const far = contentItemPage(guides[1]!).dataPath

/** Page-data requests for one page (`/__test/dynamic.json`), prefetches included. */
function dataRequests(session: JourneySession, page: string) {
  return session.requests().filter((request) => request.url.split('?')[0] === `${suite.origin}${dataPrefix}${page}`)
}

function documentRequests(session: JourneySession) {
  return session.requests().filter((request) => request.dest === 'document')
}

/** Opens `path`, waits for hydration and marks the window: the mark survives client navigations only. */
async function open(t: Test, path: string): Promise<JourneySession> {
  const session = await suite.open(t)
  await session.goto(path)
  t.ok(await session.waitForHydration(), `${path} hydrated`)
  await session.evaluate(markWindow, null)
  return session
}

function marker(session: JourneySession): Promise<string | null> {
  return session.evaluate(readMark, null)
}

t.test('a client navigation is one data GET with x-deployment-id, and no document load', async (t) => {
  const session = await open(t, staticPage.path)
  t.ok(await session.prefetchQuiet(), 'the router has no prefetch pending')
  t.equal(dataRequests(session, dynamicPage.dataPath).length, 0, 'a dynamic page’s data is never prefetched')
  await session.tab.click(testNavLink(dynamicPage.path))
  t.ok(await session.waitForHeading(dynamicPage.heading), 'the dynamic page is shown')
  const shown = await session.evaluate(
    () => ({
      path: location.pathname,
      title: document.title,
      announced: document.querySelector('.route-announcer')?.textContent,
      focused: document.activeElement?.id,
      deployment: document.querySelector('[data-testid="deployment-id"]')?.textContent,
    }),
    null,
  )
  t.same(shown, {
    path: dynamicPage.path,
    title: dynamicPage.title,
    announced: dynamicPage.title,
    focused: 'main',
    deployment: suite.deploymentId,
  })
  t.equal(await marker(session), 'still here', 'the document was not reloaded')
  t.equal(documentRequests(session).length, 1, 'one document load in all')
  const data = dataRequests(session, dynamicPage.dataPath)
  t.same(
    data.map((request) => request.headers['x-deployment-id']),
    [suite.deploymentId],
    'one data GET, carrying the deployment id',
  )
  t.same(await session.consoleErrors(), [], 'no console error')
})

t.test('a client navigation to a partly prerendered page shows its kept and its request-time data', async (t) => {
  const session = await open(t, staticPage.path)
  await session.tab.click(testNavLink(partialPage.path))
  t.ok(await session.waitForHeading(partialPage.heading), 'the partly prerendered page is shown')
  const read = () =>
    session.evaluate(
      () => ({
        kept: document.getElementById('partial-kept')?.textContent ?? '',
        live: document.getElementById('partial-live')?.textContent ?? '',
      }),
      null,
    )
  const navigated = await read()
  t.match(navigated.kept, /^Kept: [0-9a-f-]{36}$/, 'the kept half, from the page data')
  t.equal(navigated.live, 'For this request: none', 'the request-time half, from the same page data')
  t.equal(await marker(session), 'still here', 'the document was not reloaded')
  t.equal(dataRequests(session, partialPage.dataPath).length, 1, 'one data GET')
  t.same(await session.consoleErrors(), [], 'no console error')

  // The document of the same page: its shell was prerendered from the version the page data came from.
  await session.goto(`${partialPage.path}?token=journey`)
  t.ok(await session.waitForHydration(), 'the document hydrated')
  const loaded = await read()
  t.equal(loaded.kept, navigated.kept, 'the shell holds the kept half the navigation showed')
  t.equal(loaded.live, 'For this request: journey', 'its hole was resumed for this request')
  t.same(await session.consoleErrors(), [], 'no console error, no hydration mismatch')
})

t.test('a Link is prefetched within 200 px of the viewport, not further', async (t) => {
  const session = await open(t, '/__test/links')
  const layout = await session.evaluate(() => {
    const top = (id: string) => document.getElementById(id)!.getBoundingClientRect().top + window.scrollY
    return { viewport: window.innerHeight, near: top('near-link'), far: top('far-link') }
  }, null)
  t.ok(layout.near > layout.viewport + 1000, 'both links start far below the fold')
  t.ok(await session.prefetchQuiet(), 'the router has no prefetch pending')
  t.equal(dataRequests(session, near).length + dataRequests(session, far).length, 0, 'nothing prefetched yet')

  const scrollTo = (y: number) => session.evaluate((top) => window.scrollTo(0, top), y)
  // The near link 150 px below the viewport: inside the 200 px margin; the far one is then well beyond it.
  await scrollTo(layout.near - layout.viewport - 150)
  t.ok(await eventually(() => dataRequests(session, near).length >= 1), 'the link 150 px below is prefetched')
  t.ok(layout.far - layout.near + 150 >= 400, 'the far link is 400 px or more below the viewport')

  await scrollTo(layout.far - layout.viewport - 400)
  t.ok(await session.prefetchQuiet(), 'the router has no prefetch pending')
  t.equal(dataRequests(session, far).length, 0, 'the link 400 px below is not prefetched')

  await scrollTo(layout.far - layout.viewport - 150)
  t.ok(await eventually(() => dataRequests(session, far).length >= 1), 'scrolled to 150 px, it is')
  t.equal(dataRequests(session, near).length, 1, 'each only once')
  t.same(await session.consoleErrors(), [], 'no console error')
})

t.test('a hovered Link is prefetched, however far from the viewport', async (t) => {
  const session = await open(t, '/__test/links')
  t.ok(await session.prefetchQuiet(), 'the router has no prefetch pending')
  t.equal(dataRequests(session, far).length, 0, 'far below the fold: not prefetched')
  // The pointer arrives without scrolling (React's onMouseEnter listens to mouseover): only the hover can prefetch.
  await session.evaluate(() => {
    document
      .getElementById('far-link')!
      .dispatchEvent(new MouseEvent('mouseover', { bubbles: true, relatedTarget: document.body }))
  }, null)
  t.ok(await eventually(() => dataRequests(session, far).length >= 1), 'hovered: its data is prefetched')
  t.equal(await session.evaluate(() => window.scrollY, null), 0, 'the page did not scroll')
})

t.test('back and forward restore the scroll position', async (t) => {
  const session = await open(t, contentPage.path)
  await session.evaluate(() => window.scrollTo(0, 600), null)
  t.ok(await session.waitFor(() => window.scrollY === 600, null), 'scrolled to 600')
  const title = await session.evaluate(
    () => document.querySelectorAll('main .content-list a')[6]?.textContent?.trim() ?? '',
    null,
  )
  t.ok(title, `a guide far down the list (${title})`)
  await session.tab.click('main .content-list li:nth-child(7) a')
  t.ok(await session.waitForHeading(title), 'the guide is shown')
  t.equal(await session.evaluate(() => window.scrollY, null), 0, 'a new page opens at the top')
  await session.tab.back()
  t.ok(await session.waitForHeading(contentPage.heading), 'back: the list')
  t.ok(await session.waitFor(() => window.scrollY === 600, null), 'back: scrolled where it was (600)')
  await session.tab.forward()
  t.ok(await session.waitForHeading(title), 'forward: the guide')
  t.ok(await session.waitFor(() => window.scrollY === 0, null), 'forward: where it was (0)')
  t.equal(await marker(session), 'still here', 'all client navigations')
  t.same(await session.consoleErrors(), [], 'no console error')
})

t.test(
  `with 20 links in view and slow data, at most ${timings.prefetchConcurrency} prefetches are in flight`,
  async (t) => {
    const session = await suite.open(t)
    let inFlight = 0
    let most = 0
    session.route(
      (path) => path.startsWith(`${dataPrefix}/`),
      () => {
        inFlight += 1
        most = Math.max(most, inFlight)
        setTimeout(() => (inFlight -= 1), 400)
        return { delayMs: 400 }
      },
    )
    await session.goto('/__test/links?layout=grid')
    t.ok(await session.waitForHydration(), 'hydrated')
    t.equal(await session.evaluate(() => document.querySelectorAll('.test-links a').length, null), 20)
    t.ok(
      await eventually(
        () => session.requests().filter((request) => request.url.includes(dataPrefix)).length >= 20,
        15_000,
      ),
      'every link’s data prefetched',
    )
    t.equal(
      most,
      timings.prefetchConcurrency,
      `never more than ${timings.prefetchConcurrency} at once, and the queue filled`,
    )
  },
)
