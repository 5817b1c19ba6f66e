/**
 * The prefetch queue's edges in every engine: a prefetch that failed is not kept (the navigation fetches again), no
 * prefetch at all under Save-Data, and of two rapid navigations only the last renders, with nothing shown or logged.
 */
import t from 'tap'
import { router as timings } from '../../../config/router.ts'
import { guides } from '../../../src/content/guides.ts'
import { eventually, sleep, startJourneys, type JourneySession } from '../journey.ts'

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
  await session.evaluate(() => {
    ;(window as Window & { courierMarker?: string }).courierMarker = 'still here'
  }, null)
}

function marker(session: JourneySession): Promise<string | null> {
  return session.evaluate(() => (window as Window & { courierMarker?: string }).courierMarker ?? null, null)
}

const navLink = (href: string) => `nav[aria-label="Main"] a[href="${href}"]`

t.test('a failed prefetch is not kept: the navigation fetches again', async (t) => {
  const session = await suite.open(t)
  session.route(
    (path) => path.startsWith(`${dataPrefix}/faq.json`),
    (attempt) => (attempt <= timings.dataFetchAttempts ? { respond: serverError } : 'pass'),
  )
  await session.goto('/')
  t.ok(await session.waitForHydration(), 'hydrated')
  await mark(session)
  t.ok(
    await eventually(() => dataRequests(session, '/faq.json').length >= timings.dataFetchAttempts),
    'the FAQ link, in view, was prefetched and failed',
  )
  await sleep(300)
  t.equal(dataRequests(session, '/faq.json').length, timings.dataFetchAttempts, 'no retry beyond the attempts')
  await session.tab.click(navLink('/faq'))
  t.ok(await session.waitForHeading('Frequently asked questions'), 'the FAQ is shown')
  t.equal(dataRequests(session, '/faq.json').length, timings.dataFetchAttempts + 1, 'fetched again at navigation')
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
    await session.evaluate(() => (navigator as Navigator & { connection?: { saveData?: boolean } }).connection?.saveData ?? null, null),
    true,
    'the page sees Save-Data',
  )
  await session.evaluate(() => {
    document.querySelectorAll('.test-links a')[3]!.dispatchEvent(new MouseEvent('mouseover', { bubbles: true, relatedTarget: document.body }))
  }, null)
  await sleep(500)
  const speculative = session
    .requests()
    .filter((request) => request.url.includes(dataPrefix) || /\/chunks\/(guide|home|faq|status)-/.test(request.url))
  t.same(speculative.map((request) => request.url), [], 'neither data nor code, in view or hovered')
  await session.tab.click('.test-links li:first-child a')
  t.ok(await session.waitForHeading(guides[0]!.title), 'navigation still works')
  t.equal(dataRequests(session, `/guides/${guides[0]!.slug}.json`).length, 1, 'its data fetched once, at navigation')
})

t.test('two rapid navigations: only the last renders, nothing is shown or logged', async (t) => {
  const session = await suite.open(t)
  session.route(
    (path) => path.startsWith(`${dataPrefix}/status.json`),
    () => ({ delayMs: 1000 }),
  )
  await session.goto('/')
  t.ok(await session.waitForHydration(), 'hydrated')
  await mark(session)
  await session.evaluate(() => {
    const seen: string[] = []
    ;(window as Window & { courierHeadings?: string[] }).courierHeadings = seen
    new MutationObserver(() => {
      const text = document.querySelector('main h1')?.textContent?.trim()
      if (text && seen[seen.length - 1] !== text) seen.push(text)
    }).observe(document.getElementById('main')!, { childList: true, subtree: true, characterData: true })
  }, null)
  await session.tab.click(navLink('/status'))
  await session.tab.click(navLink('/faq'))
  t.ok(await session.waitForHeading('Frequently asked questions'), 'the FAQ is shown')
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
  t.same(after, {
    heading: 'Frequently asked questions',
    path: '/faq',
    headings: ['Frequently asked questions'],
    errorScreens: 0,
  }, 'the last navigation stays; the cancelled page never rendered; no error shown')
  t.equal(await marker(session), 'still here')
  t.same(await session.consoleErrors(), [], 'nothing logged')
})
