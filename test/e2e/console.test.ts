/**
 * A clean DevTools console on every page: no console error, no uncaught exception, no failed request, and no error in
 * the server's log while the pages were served. The 404 page may show Chromium's report of its own 404, and only that.
 */
import t, { type Test } from 'tap'
import { bounded, resource404Message, startSuite, timeouts, unexpectedConsoleErrors, type Session } from './harness.ts'
import { sitePagePaths, testPagePaths } from './test-pages.ts'

const suite = await startSuite(t, { COURIER_TEST_ROUTES: 'true' })

/** pino's numeric level of `error`. */
const errorLevel = 50

function assertCleanConsole(t: Test, session: Session, options: { allowDocument404?: string } = {}) {
  const { recording } = session
  t.same(unexpectedConsoleErrors(recording, options), [], 'no console error')
  t.same(recording.pageErrors, [], 'no uncaught error in the page')
  const failed = recording.requests.filter((request) => request.failure)
  t.same(failed, [], 'no request failed')
  for (const warning of recording.console.filter((entry) => entry.type === 'warning')) {
    t.comment(`console warning on ${session.page.url()}: ${warning.text}`)
  }
}

t.test('pages log no error in the browser or on the server', async (t) => {
  // The test build's pages, one of each kind, and the site's own (its page table).
  for (const path of [...testPagePaths, ...sitePagePaths]) {
    await t.test(path, async (t) => {
      const session = await suite.open(t)
      const logged = suite.serverLogs().length
      const response = await session.goto(path)
      t.equal(response.status(), 200)
      await session.settle()
      assertCleanConsole(t, session)
      const serverErrors = suite
        .serverLogs()
        .slice(logged)
        .filter((line) => line.level >= errorLevel)
      t.same(serverErrors, [], 'no error in the server log')
    })
  }
})

t.test('the 404 page logs nothing but its own 404', async (t) => {
  const session = await suite.open(t)
  const response = await session.goto('/no-such-page')
  t.equal(response.status(), 404)
  await session.settle()
  const documentUrl = session.url('/no-such-page')
  assertCleanConsole(t, session, { allowDocument404: documentUrl })
  // The allowance is for the document only: any other 404 on this page would still be reported above.
  const reported404s = session.recording.console.filter((entry) => entry.text === resource404Message)
  t.ok(
    reported404s.every((entry) => entry.url === documentUrl),
    'any 404 reported is the document itself',
  )
  const failedSubresources = session.recording.requests.filter(
    (request) => request.resourceType !== 'document' && (request.status ?? 0) >= 400,
  )
  t.same(failedSubresources, [], 'every asset of the 404 page loaded')
})

t.test('the console check is precise: another 404 on the 404 page is still an error', async (t) => {
  const session = await suite.open(t)
  await session.goto('/no-such-page')
  await session.settle()
  // A missing image: Chromium reports it with the same text as the document's own 404, under the image's URL.
  const reported = session.page
    .waitForEvent('console', {
      predicate: (message) => message.location().url.endsWith('/images/missing-e2e.png'),
      timeout: timeouts.actionMs,
    })
    .catch(() => undefined)
  const outcome = await bounded(
    session.page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          const image = new Image()
          image.addEventListener('error', () => resolve('error'), { once: true })
          image.addEventListener('load', () => resolve('load'), { once: true })
          image.src = '/images/missing-e2e.png'
        }),
    ),
    timeouts.actionMs,
    'loading a missing image',
  )
  t.equal(outcome, 'error', 'the missing image fails to load')
  t.ok(await reported, 'Chromium reported the missing image in the console')
  const errors = unexpectedConsoleErrors(session.recording, { allowDocument404: session.url('/no-such-page') })
  t.equal(errors.length, 1, 'the missing image is reported, the document 404 is not')
  t.match(errors[0]?.url ?? '', /\/images\/missing-e2e\.png$/)
})
