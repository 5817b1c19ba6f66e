/**
 * When page data fails, in every engine: a 5xx is retried (3 attempts in all), data that keeps failing ends in a full
 * load of the target, a 409 skew in a full load at once, and a route that does not load within 3.8 s in a full load.
 * The failures are made by the suite's proxy, so every engine sees the same answers.
 */
import t, { type Test } from 'tap'
import { markWindow, readMark } from '../page-probes.ts'
import { router as timings } from '../../../config/router.ts'
import { startJourneys, type JourneySession } from '../journey.ts'
import { dynamicPage, staticPage, testNavLink } from '../test-pages.ts'

const suite = await startJourneys(t, { COURIER_TEST_ROUTES: 'true' })
/** The page navigated to: a dynamic page, whose data is fetched at the click (never prefetched). */
const targetData = `/_next/data/${suite.deploymentId}${dynamicPage.dataPath}`
const serverError = {
  status: 500,
  headers: { 'content-type': 'application/json', 'x-deployment-id': suite.deploymentId },
  body: '{"statusCode":500}',
}

function targetDataRequests(session: JourneySession) {
  return session.requests().filter((request) => request.url.split('?')[0] === `${suite.origin}${targetData}`)
}

function documentRequests(session: JourneySession) {
  return session.requests().filter((request) => request.dest === 'document')
}

async function openStart(t: Test): Promise<JourneySession> {
  const session = await suite.open(t)
  await session.goto(staticPage.path)
  t.ok(await session.waitForHydration(), 'hydrated')
  await session.evaluate(markWindow, null)
  return session
}

function marker(session: JourneySession): Promise<string | null> {
  return session.evaluate(readMark, null)
}

const targetLink = testNavLink(dynamicPage.path)

t.test('500, 500, then 200: the navigation succeeds after 3 requests', async (t) => {
  const session = await openStart(t)
  session.route(
    (path) => path.startsWith(targetData),
    (attempt) => (attempt <= 2 ? { respond: serverError } : 'pass'),
  )
  await session.tab.click(targetLink)
  t.ok(await session.waitForHeading(dynamicPage.heading), 'the target page is shown')
  t.equal(targetDataRequests(session).length, timings.dataFetchAttempts, `${timings.dataFetchAttempts} requests`)
  t.equal(await marker(session), 'still here', 'a client navigation')
  t.same(
    (await session.consoleErrors()).filter((text) => !/\b500\b/.test(text)),
    [],
    'nothing logged but the engine’s own lines about the 500s',
  )
})

t.test('data that keeps failing: a console error, then a full load of the target after 3 attempts', async (t) => {
  const session = await openStart(t)
  session.route(
    (path) => path.startsWith(targetData),
    () => ({ respond: serverError }),
  )
  await session.tab.click(targetLink)
  t.ok(await session.waitForHeading(dynamicPage.heading), 'the target page is shown')
  t.ok(await session.waitFor(() => document.documentElement.dataset.hydrated === 'true', null), 'hydrated')
  const documents = documentRequests(session)
  t.same(
    documents.map((request) => new URL(request.url).pathname),
    [staticPage.path, dynamicPage.path],
    'a full load of the target',
  )
  t.equal(await marker(session), null, 'a new document')
  t.equal(targetDataRequests(session).length, timings.dataFetchAttempts, `after ${timings.dataFetchAttempts} attempts`)
  const errors = await session.consoleErrors()
  t.ok(
    errors.some((text) => /Failed to load page data/.test(text)),
    'the failure is on the console',
    { errors },
  )
})

t.test('a 409 skew: a full load at once, not retried', async (t) => {
  const session = await openStart(t)
  session.route(
    (path) => path.startsWith(targetData),
    () => ({
      respond: {
        status: 409,
        headers: { 'content-type': 'application/json', 'x-deployment-id': 'another-deployment' },
        body: '{"statusCode":409,"code":"COURIER_ERR_DATA_DEPLOYMENT_SKEW"}',
      },
    }),
  )
  await session.tab.click(targetLink)
  t.ok(await session.waitForHeading(dynamicPage.heading), 'the target page is shown')
  t.ok(await session.waitFor(() => document.documentElement.dataset.hydrated === 'true', null), 'hydrated')
  t.same(
    documentRequests(session).map((request) => new URL(request.url).pathname),
    [staticPage.path, dynamicPage.path],
    'a full load',
  )
  t.equal(await marker(session), null, 'a new document, from the new deployment')
  t.equal(targetDataRequests(session).length, 1, 'a skew is not retried')
})

t.test(`a route that does not load within ${timings.routeLoadTimeoutMs} ms: a full load`, async (t) => {
  const session = await openStart(t)
  session.route(
    (path) => path.startsWith(targetData),
    () => ({ delayMs: 8_000 }),
  )
  const started = Date.now()
  await session.tab.click(targetLink)
  const loaded = await session.waitFor(
    (path) =>
      document.documentElement.dataset.hydrated === 'true' &&
      location.pathname === path &&
      !(window as Window & { courierMarker?: string }).courierMarker,
    dynamicPage.path,
    10_000,
  )
  t.ok(loaded, 'a new document of the target')
  const documents = documentRequests(session)
  t.same(
    documents.map((request) => new URL(request.url).pathname),
    [staticPage.path, dynamicPage.path],
    'a full load of the target',
  )
  t.ok(await session.waitForHeading(dynamicPage.heading), 'the target page is shown')
  // The full load left before the data came: it was asked for before the proxy's 8 s were up.
  const dataAnswered = targetDataRequests(session).some((request) => request.status !== undefined)
  t.notOk(dataAnswered, 'the data had not arrived when the page moved on')
  t.ok(Date.now() - started < 8_000, 'the page did not wait for the data')
})
