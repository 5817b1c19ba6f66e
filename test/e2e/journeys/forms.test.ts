/**
 * A page's form in every engine (docs/forms.md), on the test build's form page: with JavaScript, a refused submission
 * shows its errors next to their fields with the values kept, and a good one the page after it, both without a full
 * load; without JavaScript (the proxy takes every script out of the documents), the browser's own POST gets the page
 * again with its errors (422), then a 303 to the page after it.
 */
import t from 'tap'
import { startJourneys, type JourneySession } from '../journey.ts'
import { testPage } from '../../helpers/page-table.ts'

const suite = await startJourneys(t, { COURIER_TEST_ROUTES: 'true' })
const formPath = testPage('test-form').path
const form = 'main form[aria-label="Contact"]'

function textOf(session: JourneySession, testId: string): Promise<string | null> {
  return session.evaluate((id) => document.querySelector(`[data-testid="${id}"]`)?.textContent ?? null, testId)
}

function valueOf(session: JourneySession, name: string): Promise<string | null> {
  return session.evaluate(
    (field) => document.querySelector<HTMLInputElement>(`input[name="${field}"]`)?.value ?? null,
    name,
  )
}

const documentPosts = (session: JourneySession) =>
  session.requests().filter((request) => request.method === 'POST' && request.dest === 'document')

t.test('with JavaScript: errors by field, values kept, then the page after it, no full load', async (t) => {
  const session = await suite.open(t)
  await session.goto(formPath)
  t.ok(await session.waitForHydration(), 'hydrated')
  await session.evaluate(() => {
    ;(window as Window & { formMarker?: string }).formMarker = 'still here'
  }, null)
  await session.tab.type(`${form} input[name="email"]`, 'ada.example')
  await session.tab.click(`${form} button[type="submit"]`)
  t.ok(
    await session.waitFor(() => document.querySelector('[data-testid="email-error"]') !== null, null),
    'errors shown',
  )
  t.equal(await textOf(session, 'email-error'), 'An email address has an @.')
  t.equal(await textOf(session, 'name-error'), 'Say who you are.')
  t.equal(await valueOf(session, 'email'), 'ada.example', 'the value typed is kept')
  const refused = session.requests().find((request) => request.method === 'POST')
  t.equal(refused?.status, 422, 'the action refused it: 422')
  t.match(refused?.url, '/_next/data/', 'sent through the data URL, by the router')

  await session.tab.type(`${form} input[name="name"]`, 'Ada')
  await session.tab.type(`${form} input[name="email"]`, '@example.com')
  await session.tab.click(`${form} button[type="submit"]`)
  t.ok(await session.waitFor(() => document.querySelector('[data-testid="sent"]') !== null, null), 'the page after it')
  t.equal(await textOf(session, 'sent'), 'Thank you, Ada.')
  t.match(await session.evaluate(() => location.search, null), 'sent=Ada', 'at the URL the action redirected to')
  t.equal(
    await session.evaluate(() => (window as Window & { formMarker?: string }).formMarker ?? null, null),
    'still here',
    'no full page load',
  )
  t.same(documentPosts(session), [], 'no document was posted')
  // The browser logs every 4xx a fetch gets, the refused submission's 422 too: that one is the answer, not an error.
  const errors = (await session.consoleErrors()).filter((text) => !/status of 422\b/.test(text))
  t.same(errors, [], 'no console error but the 422 the browser logs')
})

t.test('without JavaScript: the browser posts the form, gets its errors (422), then a 303', async (t) => {
  const session = await suite.open(t)
  session.route(
    (pathAndQuery) => pathAndQuery.startsWith(formPath),
    () => ({ transformHtml: (html) => html.replace(/<script\b[\s\S]*?<\/script>/g, '') }),
  )
  await session.goto(formPath)
  // (The harness's own probes may stay: WebKit's driver has them put into the document.)
  t.equal(
    await session.evaluate(() => document.querySelectorAll('script[src], script[type="module"]').length, null),
    0,
    "none of the app's scripts in the page",
  )
  await session.tab.type(`${form} input[name="email"]`, 'grace.example')
  await session.tab.click(`${form} button[type="submit"]`)
  t.ok(
    await session.waitFor(() => document.querySelector('[data-testid="email-error"]') !== null, null),
    'errors shown',
  )
  t.equal(await valueOf(session, 'email'), 'grace.example', 'the value sent is kept')
  t.equal(documentPosts(session)[0]?.status, 422, "the browser's own POST: 422")

  await session.tab.type(`${form} input[name="name"]`, 'Grace')
  await session.tab.type(`${form} input[name="email"]`, '@example.com')
  await session.tab.click(`${form} button[type="submit"]`)
  t.ok(await session.waitFor(() => document.querySelector('[data-testid="sent"]') !== null, null), 'the page after it')
  t.equal(await textOf(session, 'sent'), 'Thank you, Grace.')
  t.equal(documentPosts(session)[1]?.status, 303, 'See Other')
  t.equal(await session.evaluate(() => document.documentElement.dataset.hydrated ?? null, null), null, 'never hydrated')
})
