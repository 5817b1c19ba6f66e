/**
 * The application error screens in Chromium: a client-side exception, a server-side one (500 page with its digest)
 * and a boundary that fails after the shell was flushed; each reaches the console, and the client's report reaches
 * the server's log.
 */
import t from 'tap'
import { bounded, startSuite, timeouts } from './harness.ts'
import { staticPage } from './test-pages.ts'

const suite = await startSuite(t, { COURIER_TEST_ROUTES: 'true' })

/** Waits for a server log line, bounded. */
async function serverLogLine(predicate: (line: ReturnType<typeof suite.serverLogs>[number]) => boolean) {
  return bounded(
    (async () => {
      for (;;) {
        const line = suite.serverLogs().find(predicate)
        if (line) return line
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    })(),
    timeouts.settleMs,
    'a server log line',
  )
}

t.test('a client-side exception shows the client-side screen, logs to the console and is reported', async (t) => {
  const session = await suite.open(t)
  const response = await session.goto('/__test/client-error')
  t.equal(response.status(), 200)
  t.ok(await session.waitForHydration(), 'hydrated')
  await session.page.click('#throw')
  const screen = session.page.locator('.application-error-message')
  await screen.waitFor({ timeout: timeouts.actionMs })
  const host = new URL(suite.origin).host
  t.equal(
    (await screen.textContent())?.trim(),
    `Application error: a client-side exception has occurred while loading ${host} (see the browser console for more information).`,
  )
  t.equal(await session.page.locator('.application-error-digest').count(), 0, 'no digest on the client-side screen')
  t.ok(
    session.recording.console.some(
      (entry) => entry.type === 'error' && entry.text.includes('failed in the browser on purpose'),
    ),
    'the error is on the console',
  )
  const line = await serverLogLine(
    (entry) =>
      entry.msg === 'client error reported' &&
      String((entry.clientError as { message?: string } | undefined)?.message).includes(
        'failed in the browser on purpose',
      ),
  )
  t.match(line, {
    level: 40,
    clientError: { source: 'boundary', url: `${suite.origin}/__test/client-error` },
    userAgent: /Chrome/,
  })
  const report = session.recording.requests.filter((request) => request.url.endsWith('/api/client-errors'))
  t.equal(report.length, 1, 'reported once')
  t.equal(report[0]?.status, 204)
})

t.test('a server-side exception shows the server-side screen with the digest of the log line', async (t) => {
  const session = await suite.open(t)
  const response = await session.goto('/__test/server-error')
  t.equal(response.status(), 500)
  t.ok(await session.waitForHydration(), 'the 500 page hydrates like any page')
  const host = new URL(suite.origin).host
  t.equal(
    (await session.page.locator('.application-error-message').textContent())?.trim(),
    `Application error: a server-side exception has occurred while loading ${host} (see the browser console for more information).`,
  )
  const digestText = (await session.page.locator('.application-error-digest').textContent())?.trim() ?? ''
  const digest = /^Digest: ([0-9a-f]{10})$/.exec(digestText)?.[1]
  t.ok(digest, `the digest is shown (${digestText})`)
  t.equal(await session.page.title(), '500: Internal Server Error')
  const line = await serverLogLine((entry) => entry.msg === 'request failed' && entry.digest === digest)
  t.equal(line.reqId, response.headers()['x-request-id'], 'the digest finds the request')
  t.ok(
    session.recording.console.some((entry) => entry.type === 'error' && entry.text.includes(`Digest: ${digest}`)),
    'the console names the digest',
  )
})

t.test('a boundary that fails after the shell: the page ends with the server-side screen and its digest', async (t) => {
  const session = await suite.open(t)
  const response = await session.goto('/__test/late-error?delay=100')
  t.equal(response.status(), 200, 'the status sent with the shell stays')
  t.ok(await session.waitForHydration(), 'hydrated')
  const screen = session.page.locator('#__COURIER_LATE_ERROR__')
  t.ok(await screen.isVisible(), 'the error screen is visible')
  const digestText = (await screen.locator('.application-error-digest').textContent())?.trim() ?? ''
  const digest = /^Digest: ([0-9a-f]{10})$/.exec(digestText)?.[1]
  t.ok(digest, `the digest is shown (${digestText})`)
  t.match(await screen.locator('.application-error-message').textContent(), 'a server-side exception has occurred')
  const line = await serverLogLine((entry) => entry.msg === 'render failed' && entry.digest === digest)
  t.equal(line.reqId, response.headers()['x-request-id'])
  t.ok(
    session.recording.console.some((entry) => entry.type === 'error' && entry.text.includes(digest!)),
    'the console names the digest',
  )
  // React recovers by rendering the boundary in the browser and says so (onRecoverableError): that is reported too.
  const report = await serverLogLine(
    (entry) =>
      entry.msg === 'client error reported' &&
      (entry.clientError as { source?: string; digest?: string } | undefined)?.digest === digest,
  )
  t.match(report, { clientError: { source: 'hydration', digest }, userAgent: /Chrome/ }, 'the recovery reaches the log')
})

t.test('a page without the screen stays clean: no report is sent', async (t) => {
  const session = await suite.open(t)
  await session.goto(staticPage.path)
  await session.settle()
  t.notOk(session.recording.requests.some((request) => request.url.endsWith('/api/client-errors')))
})
