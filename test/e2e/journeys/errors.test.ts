/**
 * The application error screens in every engine, and the client's report reaching the server's log: a client-side
 * exception (screen, console, one report), a server-side one (500 page with the digest of its log line), an error
 * thrown as the page is left (`pagehide`), whose report still arrives (sendBeacon outlives the document), and a
 * boundary that fails after the shell was flushed.
 */
import t from 'tap'
import { eventually, startJourneys, type JourneySession } from '../journey.ts'
import { dynamicPage, staticPage } from '../test-pages.ts'

const suite = await startJourneys(t, { COURIER_TEST_ROUTES: 'true' })
/** What each engine's User-Agent says of it (the report carries it to the log). */
const userAgents = { chromium: /Chrome\//, firefox: /Firefox\//, webkit: /AppleWebKit\/.*Safari\// }
const host = new URL(suite.origin).host

function reports(session: JourneySession) {
  return session.requests().filter((request) => new URL(request.url).pathname === '/api/client-errors')
}

function clientErrorMessage(line: Record<string, unknown>): string {
  return String((line.clientError as { message?: string } | undefined)?.message)
}

t.test('a client-side exception: the client-side screen, the console, one report in the server log', async (t) => {
  const session = await suite.open(t)
  const response = await session.goto('/__test/client-error')
  t.equal(response.status, 200)
  t.ok(await session.waitForHydration(), 'hydrated')
  await session.tab.click('#throw')
  t.ok(
    await session.waitFor(() => document.querySelector('.application-error-message') !== null, null),
    'the screen is shown',
  )
  const screen = await session.evaluate(
    () => ({
      message: document.querySelector('.application-error-message')?.textContent?.trim(),
      digest: document.querySelector('.application-error-digest')?.textContent ?? null,
    }),
    null,
  )
  t.same(screen, {
    message: `Application error: a client-side exception has occurred while loading ${host} (see the browser console for more information).`,
    digest: null,
  })
  t.ok(
    (await session.consoleErrors()).some((text) => text.includes('failed in the browser on purpose')),
    'the error is on the console',
  )
  const line = await suite.serverLogLine(
    (entry) =>
      entry.msg === 'client error reported' && clientErrorMessage(entry).includes('failed in the browser on purpose'),
  )
  t.match(
    line,
    {
      level: 40,
      clientError: { source: 'boundary', url: `${suite.origin}/__test/client-error` },
      userAgent: userAgents[suite.engine],
    },
    'the report is in the server log, with this engine’s User-Agent',
  )
  t.ok(
    await eventually(() => reports(session).every((request) => request.status !== undefined)),
    'the report was answered',
  )
  t.same(
    reports(session).map((request) => [request.method, request.status]),
    [['POST', 204]],
    'reported once, 204',
  )
})

t.test('a server-side exception: the server-side screen with the digest of the log line', async (t) => {
  const session = await suite.open(t)
  const response = await session.goto('/__test/server-error')
  t.equal(response.status, 500)
  t.ok(await session.waitForHydration(), 'the 500 page hydrates like any page')
  const screen = await session.evaluate(
    () => ({
      title: document.title,
      message: document.querySelector('.application-error-message')?.textContent?.trim(),
      digest: document.querySelector('.application-error-digest')?.textContent?.trim() ?? '',
    }),
    null,
  )
  t.equal(screen.title, '500: Internal Server Error')
  t.equal(
    screen.message,
    `Application error: a server-side exception has occurred while loading ${host} (see the browser console for more information).`,
  )
  const digest = /^Digest: ([0-9a-f]{10})$/.exec(screen.digest)?.[1]
  t.ok(digest, `the digest is shown (${screen.digest})`)
  const line = await suite.serverLogLine((entry) => entry.msg === 'request failed' && entry.digest === digest)
  t.ok(line, 'the digest finds the log line')
  t.equal(line?.reqId, response.responseHeaders?.['x-request-id'], 'of this request')
  t.ok(
    (await session.consoleErrors()).some((text) => text.includes(`Digest: ${digest}`)),
    'the console names the digest',
  )
})

t.test('an error thrown on pagehide is still reported: the beacon outlives the page', async (t) => {
  const session = await suite.open(t)
  await session.goto(staticPage.path)
  t.ok(await session.waitForHydration(), 'hydrated')
  // The reporter loads after hydration; once it is in, a report goes out synchronously, even from pagehide.
  t.ok(
    await eventually(() =>
      session.requests().some((request) => /\/report-[\w-]+\.js/.test(request.url) && request.status === 200),
    ),
    'the reporter is loaded',
  )
  await session.evaluate(() => {
    window.addEventListener('pagehide', () => {
      throw new Error('thrown on pagehide (browser suite)')
    })
  }, null)
  await session.goto(dynamicPage.path)
  const line = await suite.serverLogLine(
    (entry) => entry.msg === 'client error reported' && clientErrorMessage(entry).includes('thrown on pagehide'),
  )
  t.match(
    line,
    {
      clientError: { source: 'onerror', url: `${suite.origin}${staticPage.path}` },
      userAgent: userAgents[suite.engine],
    },
    'the report of the page that was left is in the server log',
  )
  const beacon = reports(session)[0]
  t.ok(beacon, 'it came as a POST to /api/client-errors')
  // The server logs the report before it answers: the proxy has the answer's status a moment after the log line.
  await eventually(() => beacon?.status !== undefined)
  t.equal(beacon?.status, 204)
})

t.test(
  'a boundary that fails after the shell: the server-side screen and its digest, and the recovery reported',
  async (t) => {
    const session = await suite.open(t)
    const response = await session.goto('/__test/late-error?delay=100')
    t.equal(response.status, 200, 'the status sent with the shell stays')
    t.ok(await session.waitForHydration(), 'hydrated')
    const screen = await session.evaluate(() => {
      const element = document.getElementById('__COURIER_LATE_ERROR__')
      return {
        visible: element !== null && element.getBoundingClientRect().height > 0,
        message: element?.querySelector('.application-error-message')?.textContent ?? '',
        digest: element?.querySelector('.application-error-digest')?.textContent?.trim() ?? '',
      }
    }, null)
    t.ok(screen.visible, 'the error screen is visible')
    t.match(screen.message, 'a server-side exception has occurred')
    const digest = /^Digest: ([0-9a-f]{10})$/.exec(screen.digest)?.[1]
    t.ok(digest, `the digest is shown (${screen.digest})`)
    const line = await suite.serverLogLine((entry) => entry.msg === 'render failed' && entry.digest === digest)
    t.equal(line?.reqId, response.responseHeaders?.['x-request-id'], 'the digest finds the log line of this request')
    const report = await suite.serverLogLine(
      (line) =>
        line.msg === 'client error reported' &&
        (line.clientError as { digest?: string } | undefined)?.digest === digest,
    )
    t.match(
      report,
      { clientError: { source: 'hydration', digest }, userAgent: userAgents[suite.engine] },
      'the recovery in the browser reaches the log',
    )
  },
)
