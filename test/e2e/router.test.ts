/**
 * The client router in Chromium: client navigation over page data, prefetch (viewport margin, queue, stale times),
 * retries and the fallbacks to a full page load (failure, skew, time-out), cancellation, back/forward.
 */
import t, { type Test } from 'tap'
import { recordHeadings } from './page-probes.ts'
import type { Page, Route } from 'playwright-core'
import { router as timings } from '../../config/router.ts'
import { guides } from '../helpers/content.ts'
import { startSuite, timeouts, unexpectedConsoleErrors, type Session } from './harness.ts'
import {
  contentItemPage,
  contentPage,
  dynamicPage,
  filterPage,
  isChunkOfAnotherPage,
  staticPage,
  testNavLink,
} from './test-pages.ts'

const suite = await startSuite(t, { COURIER_TEST_ROUTES: 'true' })
const dataBase = `${suite.origin}/_next/data/${suite.deploymentId}`
const firstGuide = guides[0]!
const secondGuide = guides[1]!
const firstItem = contentItemPage(firstGuide)

type MarkedWindow = Window & { courierMarker?: string }

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Requests of the recording for one data path (`/__test/dynamic.json`), prefetches included. */
function dataRequests(session: Session, path: string) {
  return session.recording.requests.filter((entry) => entry.url.split('?')[0] === `${dataBase}${path}`)
}

function documentRequests(session: Session) {
  return session.recording.requests.filter((entry) => entry.resourceType === 'document')
}

/** Opens `path`, waits for hydration and leaves a marker on window: it survives client navigations only. */
async function open(t: Test, path: string): Promise<Session> {
  const session = await suite.open(t)
  await session.goto(path)
  t.ok(await session.waitForHydration(), `${path} hydrated`)
  await session.page.evaluate(() => {
    ;(window as MarkedWindow).courierMarker = 'still here'
  })
  return session
}

async function marker(page: Page): Promise<string | undefined> {
  return page.evaluate(() => (window as MarkedWindow).courierMarker)
}

async function heading(page: Page): Promise<string> {
  return ((await page.locator('main h1').first().textContent()) ?? '').trim()
}

async function waitForHeading(page: Page, text: string): Promise<void> {
  await page.waitForFunction((expected) => document.querySelector('main h1')?.textContent?.trim() === expected, text, {
    timeout: timeouts.navigationMs,
  })
}

/** The link to `path` in the test pages' own navigation. */
function navLink(page: Page, path: string) {
  return page.locator(testNavLink(path))
}

/** Waits until `count()` reaches `atLeast`, polling; false when it does not within `ms`. */
async function eventually(count: () => number, atLeast: number, ms: number = timeouts.actionMs): Promise<boolean> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (count() >= atLeast) return true
    await sleep(25)
  }
  return count() >= atLeast
}

t.test('a client navigation is one data GET with x-deployment-id, and no document load', async (t) => {
  const session = await open(t, staticPage.path)
  const { page } = session
  const headers: Array<string | undefined> = []
  page.on('request', (request) => {
    if (request.url().startsWith(`${dataBase}${dynamicPage.dataPath}`))
      headers.push(request.headers()['x-deployment-id'])
  })
  t.ok(await session.prefetchQuiet(), 'the router has no prefetch pending')
  t.equal(dataRequests(session, dynamicPage.dataPath).length, 0, 'a dynamic page’s data is never prefetched')
  await navLink(page, dynamicPage.path).click()
  await waitForHeading(page, dynamicPage.heading)
  t.equal(new URL(page.url()).pathname, dynamicPage.path)
  t.equal(await marker(page), 'still here', 'the document was not reloaded')
  t.equal(documentRequests(session).length, 1, 'one document load in all')
  t.same(headers, [suite.deploymentId], 'one data GET, carrying the deployment id')
  t.equal(await page.title(), dynamicPage.title, 'the title follows the page')
  t.equal(await page.locator('.route-announcer').textContent(), dynamicPage.title, 'the announcer reads the title')
  t.equal(await page.evaluate(() => document.activeElement?.id), 'main', 'focus moves to the new content')
  t.equal(await page.locator('[data-testid="deployment-id"]').textContent(), suite.deploymentId, 'data rendered')

  await page.goBack()
  await waitForHeading(page, staticPage.heading)
  t.equal(await marker(page), 'still here', 'back is a client navigation too')
  t.equal(
    dataRequests(session, staticPage.dataPath).length,
    0,
    'the static page’s data is the document’s own, still fresh',
  )
  t.same(unexpectedConsoleErrors(session.recording), [], 'no console errors')
  t.same(session.recording.pageErrors, [], 'no page errors')
})

t.test('a Link is prefetched within 200 px of the viewport, not further', async (t) => {
  const session = await open(t, '/__test/links')
  const { page } = session
  const nearPath = firstItem.dataPath
  const farPath = contentItemPage(secondGuide).dataPath
  const viewport = page.viewportSize()!.height
  const topOf = (selector: string) =>
    page.$eval(selector, (element) => element.getBoundingClientRect().top + window.scrollY)
  const nearTop = await topOf('#near-link')
  const farTop = await topOf('#far-link')
  t.ok(nearTop > viewport + 1000, 'both links start far below the fold')
  t.ok(await session.prefetchQuiet(), 'the router has no prefetch pending')
  t.equal(dataRequests(session, nearPath).length + dataRequests(session, farPath).length, 0, 'nothing prefetched yet')

  // The near link 150 px below the viewport: inside the 200 px margin. The far one is then well beyond it.
  await page.evaluate((y) => window.scrollTo(0, y), nearTop - viewport - 150)
  t.ok(await eventually(() => dataRequests(session, nearPath).length, 1), 'the link 150 px below is prefetched')
  t.ok(farTop - nearTop + 150 >= 400, 'the far link is 400 px or more below the viewport')

  await page.evaluate((y) => window.scrollTo(0, y), farTop - viewport - 400)
  t.ok(await session.prefetchQuiet(), 'the router has no prefetch pending')
  t.equal(dataRequests(session, farPath).length, 0, 'the link 400 px below is not prefetched')

  await page.evaluate((y) => window.scrollTo(0, y), farTop - viewport - 150)
  t.ok(await eventually(() => dataRequests(session, farPath).length, 1), 'scrolled near, it is')
  t.equal(dataRequests(session, nearPath).length, 1, 'each only once')
  t.same(unexpectedConsoleErrors(session.recording), [])
})

t.test('a hovered Link is prefetched, however far from the viewport', async (t) => {
  const session = await open(t, '/__test/links')
  const { page } = session
  const farPath = contentItemPage(secondGuide).dataPath
  t.ok(await session.prefetchQuiet(), 'the router has no prefetch pending')
  t.equal(dataRequests(session, farPath).length, 0, 'far below the fold: not prefetched')
  // The pointer arrives without scrolling (React's onMouseEnter listens to mouseover): only the hover can prefetch.
  await page.locator('#far-link').dispatchEvent('mouseover')
  t.ok(await eventually(() => dataRequests(session, farPath).length, 1), 'hovered: its data is prefetched')
  t.equal(await page.evaluate(() => window.scrollY), 0, 'the page did not scroll')
  t.same(unexpectedConsoleErrors(session.recording), [])
})

t.test('with 20 links in view and slow data, at most 5 prefetches are in flight', async (t) => {
  const session = await suite.open(t)
  const { page } = session
  let inFlight = 0
  let most = 0
  let answered = 0
  await page.route(`${dataBase}/**`, async function slowData(route: Route) {
    inFlight += 1
    most = Math.max(most, inFlight)
    try {
      await sleep(400)
      const response = await route.fetch()
      await route.fulfill({ response })
    } catch {
      // The test is over and its page closed: nothing is waiting for this answer any more.
    } finally {
      inFlight -= 1
      answered += 1
    }
  })
  await session.goto('/__test/links?layout=grid')
  t.ok(await session.waitForHydration())
  const links = await page.locator('.test-links a').count()
  t.equal(links, 20)
  // 20 links to content pages, plus the static pages the site's and the test pages' navigations link.
  t.ok(await eventually(() => answered, 20, 15_000), `every link’s data prefetched (${answered})`)
  t.equal(
    most,
    timings.prefetchConcurrency,
    `never more than ${timings.prefetchConcurrency} at once, and the queue filled`,
  )
})

t.test(
  'static data prefetched stays fresh 300 s, a page with revalidate N for N s; dynamic data is fetched at every navigation',
  async (t) => {
    const session = await suite.open(t)
    const { page } = session
    await page.clock.install()
    await session.goto(contentPage.path)
    t.ok(await session.waitForHydration())
    // A static page without revalidate, linked from the test pages' navigation.
    const linked = staticPage
    const showsLinked = () =>
      page.waitForFunction((title) => document.title === title, linked.title, { timeout: timeouts.navigationMs })
    t.ok(
      await eventually(() => dataRequests(session, linked.dataPath).length, 1),
      `${linked.path}, linked from the navigation, is prefetched`,
    )
    const path = firstItem.dataPath
    t.ok(await eventually(() => dataRequests(session, path).length, 1), 'the first guide, in view, is prefetched')

    await page.clock.fastForward('04:50')
    await navLink(page, linked.path).click()
    await showsLinked()
    t.equal(dataRequests(session, linked.dataPath).length, 1, 'prefetched 290 s ago: not fetched again')
    await page.goBack()
    await waitForHeading(page, contentPage.heading)
    await page.clock.fastForward('00:20')
    await navLink(page, linked.path).click()
    await showsLinked()
    t.equal(dataRequests(session, linked.dataPath).length, 2, 'after 300 s it is')
    await page.goBack()
    await waitForHeading(page, contentPage.heading)

    // The guide's page declares revalidate 60: its data prefetched 310 s ago is past it, and fetched at the click.
    const link = page.locator('main .content-list a').first()
    await link.click()
    await waitForHeading(page, firstGuide.title)
    t.ok(dataRequests(session, path).length >= 2, 'a page with revalidate: past it, fetched again')
    const fetched = dataRequests(session, path).length
    await page.goBack()
    await waitForHeading(page, contentPage.heading)
    await link.click()
    await waitForHeading(page, firstGuide.title)
    t.equal(dataRequests(session, path).length, fetched, 'seconds later: the kept data, nothing asked')

    await navLink(page, dynamicPage.path).click()
    await waitForHeading(page, dynamicPage.heading)
    await navLink(page, filterPage.path).click()
    await waitForHeading(page, filterPage.heading)
    await navLink(page, dynamicPage.path).click()
    await waitForHeading(page, dynamicPage.heading)
    t.equal(dataRequests(session, dynamicPage.dataPath).length, 2, 'dynamic data: one GET per navigation')
    t.equal(documentRequests(session).length, 1)
    t.same(unexpectedConsoleErrors(session.recording), [])
  },
)

/** Routes the dynamic page's data through `handler`. */
async function routeDynamicData(page: Page, handler: (route: Route, attempt: number) => Promise<void>) {
  let attempt = 0
  await page.route(`${dataBase}${dynamicPage.dataPath}*`, (route) => handler(route, ++attempt))
}

const serverError = { status: 500, contentType: 'application/json', body: '{"statusCode":500}' }

t.test('500, 500, then 200: the navigation succeeds after 3 requests', async (t) => {
  const session = await open(t, staticPage.path)
  const { page } = session
  await routeDynamicData(page, async (route, attempt) => {
    if (attempt <= 2) return route.fulfill({ ...serverError, headers: { 'x-deployment-id': suite.deploymentId } })
    return route.continue()
  })
  await navLink(page, dynamicPage.path).click()
  await waitForHeading(page, dynamicPage.heading)
  t.equal(dataRequests(session, dynamicPage.dataPath).length, timings.dataFetchAttempts)
  t.equal(await marker(page), 'still here')
  t.same(
    session.recording.console.filter((entry) => entry.type === 'error' && !entry.text.includes('status of 500')),
    [],
    'nothing logged but the browser’s own lines about the 500s',
  )
})

t.test('data that keeps failing: console error, then a full page load of the target', async (t) => {
  const session = await open(t, staticPage.path)
  const { page } = session
  await routeDynamicData(page, (route) =>
    route.fulfill({ ...serverError, headers: { 'x-deployment-id': suite.deploymentId } }),
  )
  const documentLoad = page.waitForRequest((request) => request.resourceType() === 'document', {
    timeout: timeouts.navigationMs,
  })
  await navLink(page, dynamicPage.path).click()
  t.equal(new URL((await documentLoad).url()).pathname, dynamicPage.path, 'a full load of the target')
  await waitForHeading(page, dynamicPage.heading)
  t.equal(await marker(page), undefined, 'a new document')
  t.equal(dataRequests(session, dynamicPage.dataPath).length, timings.dataFetchAttempts, 'after 3 attempts')
  t.ok(
    session.recording.console.some((entry) => entry.type === 'error' && /Failed to load page data/.test(entry.text)),
    'the failure is logged',
  )
  t.notOk(session.recording.console.some((entry) => /Route Cancelled/.test(entry.text)))
})

t.test('a 409 skew: a full page load at once', async (t) => {
  const session = await open(t, staticPage.path)
  const { page } = session
  await routeDynamicData(page, (route) =>
    route.fulfill({
      status: 409,
      contentType: 'application/json',
      headers: { 'x-deployment-id': 'another-deployment' },
      body: '{"statusCode":409,"code":"COURIER_ERR_DATA_DEPLOYMENT_SKEW"}',
    }),
  )
  await navLink(page, dynamicPage.path).click()
  await page.waitForURL(`**${dynamicPage.path}`, { timeout: timeouts.navigationMs })
  await waitForHeading(page, dynamicPage.heading)
  t.equal(await marker(page), undefined, 'a new document, from the new deployment')
  t.equal(dataRequests(session, dynamicPage.dataPath).length, 1, 'a skew is not retried')
})

t.test('a route that does not load within 3.8 s: a full page load', async (t) => {
  const session = await open(t, staticPage.path)
  const { page } = session
  await routeDynamicData(page, async (route) => {
    await sleep(5000)
    // The page has moved on by now: the route may be gone with it.
    await route.continue().catch(() => undefined)
  })
  const documentLoad = page.waitForRequest((request) => request.resourceType() === 'document', { timeout: 10_000 })
  const started = Date.now()
  await navLink(page, dynamicPage.path).click()
  const load = await documentLoad
  const elapsed = Date.now() - started
  t.equal(new URL(load.url()).pathname, dynamicPage.path)
  t.ok(
    elapsed >= timings.routeLoadTimeoutMs - 300 && elapsed < 5000,
    `the full load started after ${elapsed} ms: about ${timings.routeLoadTimeoutMs} ms, before the data`,
  )
  await waitForHeading(page, dynamicPage.heading)
  t.equal(await marker(page), undefined)
})

t.test('two rapid navigations: only the last renders, nothing is shown or logged', async (t) => {
  const session = await open(t, staticPage.path)
  const { page } = session
  await routeDynamicData(page, async (route) => {
    await sleep(1000)
    await route.continue().catch(() => undefined)
  })
  await page.evaluate(recordHeadings)
  await navLink(page, dynamicPage.path).click()
  await navLink(page, filterPage.path).click()
  await waitForHeading(page, filterPage.heading)
  await sleep(1500)
  t.equal(await heading(page), filterPage.heading, 'the last navigation stays')
  t.equal(new URL(page.url()).pathname, filterPage.path)
  const headings = await page.evaluate(() => (window as Window & { courierHeadings?: string[] }).courierHeadings)
  t.same(headings, [filterPage.heading], 'the cancelled page never rendered')
  t.equal(await page.locator('.error-screen').count(), 0, 'no error shown')
  t.equal(await marker(page), 'still here')
  t.same(unexpectedConsoleErrors(session.recording), [], 'nothing logged')
  t.same(session.recording.pageErrors, [])
})

t.test('back and forward restore the scroll position', async (t) => {
  const session = await open(t, contentPage.path)
  const { page } = session
  await page.evaluate(() => window.scrollTo(0, 600))
  const link = page.locator('main .content-list a').nth(6)
  const title = ((await link.textContent()) ?? '').trim()
  await link.click()
  await waitForHeading(page, title)
  t.equal(await page.evaluate(() => window.scrollY), 0, 'a new page opens at the top')
  await page.goBack()
  await waitForHeading(page, contentPage.heading)
  t.equal(await page.evaluate(() => window.scrollY), 600, 'back: where it was')
  await page.goForward()
  await waitForHeading(page, title)
  t.equal(await page.evaluate(() => window.scrollY), 0, 'forward: where it was')
  t.equal(await marker(page), 'still here')
})

t.test('modified clicks and other targets are the browser’s', async (t) => {
  const session = await open(t, staticPage.path)
  const { page } = session
  const popup = session.context.waitForEvent('page', { timeout: timeouts.actionMs })
  await navLink(page, filterPage.path).click({ modifiers: ['Control'] })
  const opened = await popup
  await opened.close()
  t.equal(new URL(page.url()).pathname, staticPage.path, 'a ctrl-click opens a new tab and leaves this page alone')
  t.equal(await heading(page), staticPage.heading)
})

t.test('a failed prefetch is not kept: the navigation fetches again', async (t) => {
  const session = await suite.open(t)
  const { page } = session
  let attempts = 0
  await page.route(`${dataBase}${filterPage.dataPath}*`, async (route) => {
    attempts += 1
    if (attempts <= timings.dataFetchAttempts) {
      return route.fulfill({ ...serverError, headers: { 'x-deployment-id': suite.deploymentId } })
    }
    return route.continue()
  })
  await session.goto(staticPage.path)
  t.ok(await session.waitForHydration())
  t.ok(
    await eventually(() => attempts, timings.dataFetchAttempts),
    'the filter page’s link, in view, was prefetched and failed',
  )
  t.ok(await session.prefetchQuiet(), 'the router has no prefetch pending')
  t.equal(dataRequests(session, filterPage.dataPath).length, timings.dataFetchAttempts, 'no retry beyond the attempts')
  await navLink(page, filterPage.path).click()
  await waitForHeading(page, filterPage.heading)
  t.equal(
    dataRequests(session, filterPage.dataPath).length,
    timings.dataFetchAttempts + 1,
    'fetched again at navigation',
  )
  t.equal(documentRequests(session).length, 1, 'a client navigation')
  t.notOk(
    session.recording.console.some((entry) => /Failed to load page data/.test(entry.text)),
    'nothing reported',
  )
})

t.test('no prefetch under Save-Data', async (t) => {
  const session = await suite.open(t)
  const { page } = session
  await page.addInitScript(() => {
    Object.defineProperty(navigator, 'connection', { value: { saveData: true }, configurable: true })
  })
  await session.goto('/__test/links?layout=grid')
  t.ok(await session.waitForHydration())
  await page.locator('.test-links a').nth(3).hover()
  t.ok(await session.prefetchQuiet(), 'the router has no prefetch pending')
  const prefetched = session.recording.requests.filter(
    (entry) => entry.url.startsWith(dataBase) || isChunkOfAnotherPage(entry.url, 'test-links'),
  )
  t.same(prefetched, [], 'neither data nor code, in view or hovered')
  await page.locator('.test-links a').first().click()
  await waitForHeading(page, firstGuide.title)
  t.equal(dataRequests(session, firstItem.dataPath).length, 1, 'navigation still works')
})

t.test(
  'a link to a path the site policy redirects: its page data, then the destination, without a full load',
  async (t) => {
    const session = await suite.open(t)
    const { page } = session
    // A path no page matches, redirected as the request filter answers a redirect asked as page data.
    const movedPath = '/__test/moved-away'
    await page.route(`${dataBase}${movedPath}.json*`, (route) =>
      route.fulfill({
        status: 200,
        headers: { 'content-type': 'application/json', 'x-deployment-id': suite.deploymentId },
        body: JSON.stringify({ redirect: { destination: staticPage.path, permanent: true } }),
      }),
    )
    await session.goto(`/__test/links?to=${movedPath}`)
    t.ok(await session.waitForHydration(), 'hydrated')
    await page.evaluate(() => {
      ;(window as MarkedWindow).courierMarker = 'still here'
    })
    t.ok(await session.prefetchQuiet(), 'the router has no prefetch pending')
    t.equal(dataRequests(session, `${movedPath}.json`).length, 0, 'a path that is no page is never prefetched')
    await page.locator(`.test-links a[href="${movedPath}"]`).click()
    await waitForHeading(page, staticPage.heading)
    t.equal(new URL(page.url()).pathname, staticPage.path, 'the address is the destination')
    t.equal(await marker(page), 'still here', 'a client navigation')
    t.equal(documentRequests(session).length, 1, 'one document load in all')
    t.equal(dataRequests(session, `${movedPath}.json`).length, 1, 'the moved path was asked once, as page data')
    await page.goBack()
    await waitForHeading(page, 'Links')
    t.equal(new URL(page.url()).pathname, '/__test/links', 'back goes to the page the link was on, not the moved path')
    t.same(session.recording.pageErrors, [], 'no page errors')
  },
)

t.test(
  'a link to a path that is no page and no redirect: its page data is a 404, then a full load shows it',
  async (t) => {
    const session = await open(t, '/__test/links?to=/__test/no-such-page,/__test/report.pdf')
    const { page } = session
    await page.locator('.test-links a[href="/__test/no-such-page"]').click()
    await page.waitForURL(`${suite.origin}/__test/no-such-page`, { timeout: timeouts.navigationMs })
    await page.waitForLoadState('domcontentloaded')
    t.equal(dataRequests(session, '/__test/no-such-page.json').length, 1, 'its page data was asked once')
    t.equal(documentRequests(session).length, 2, 'then the browser loaded the document')
    t.equal(await marker(page), undefined, 'a full load')
    const notFound = session.recording.requests.filter((entry) => entry.url === `${suite.origin}/__test/no-such-page`)
    t.equal(notFound.length, 1, 'the 404 document was loaded once')

    const files = await open(t, '/__test/links?to=/__test/no-such-page,/__test/report.pdf')
    await files.page.locator('.test-links a[href="/__test/report.pdf"]').click()
    await files.page.waitForURL(`${suite.origin}/__test/report.pdf`, { timeout: timeouts.navigationMs })
    t.equal(
      dataRequests(files, '/__test/report.pdf.json').length,
      0,
      'a file’s path is the browser’s: no page data asked',
    )
  },
)
