/**
 * Partly prerendered pages in a real browser: the kept shell with its holes resumed hydrates without a mismatch, a
 * console error or a CSP violation (React's nonce-less shell script is allowed by its hash); a failed request-time
 * loader shows the error section with the digest of the server's log line; and a client navigation to such a page
 * draws both kinds of data from its page data.
 */
import t, { type Test } from 'tap'
import { startSuite, unexpectedConsoleErrors, type Session } from './harness.ts'
import { partialPage, staticPage, testNavLink } from './test-pages.ts'

const suite = await startSuite(t, { COURIER_TEST_ROUTES: 'true' })

declare global {
  interface Window {
    __partialViolations?: string[]
  }
}

async function recordViolations(session: Session): Promise<void> {
  await session.context.addInitScript(() => {
    window.__partialViolations = []
    document.addEventListener('securitypolicyviolation', (event) => {
      window.__partialViolations!.push(`${event.violatedDirective} ${event.blockedURI} ${event.sample}`)
    })
  })
}

function assertClean(t: Test, session: Session) {
  t.same(unexpectedConsoleErrors(session.recording), [], 'no console error (a hydration mismatch would be one)')
  t.same(session.recording.pageErrors, [], 'no uncaught error')
}

t.test('a partly prerendered page hydrates with its hole resumed, cleanly and under the CSP', async (t) => {
  const session = await suite.open(t)
  await recordViolations(session)
  const response = await session.goto('/__test/partial?token=browser')
  t.equal(response.status(), 200)
  t.match(
    response.headers()['content-security-policy'] ?? '',
    /^script-src 'sha256-/,
    'the policy names the shell script’s hash',
  )
  t.ok(await session.waitForHydration(), 'hydrated')
  await session.settle()
  t.equal(
    await session.page.locator('#partial-live').textContent(),
    'For this request: browser',
    'the hole shows this request’s data',
  )
  t.equal(await session.page.locator('#partial-fallback').count(), 0, 'its fallback is gone')
  t.same(await session.page.evaluate(() => window.__partialViolations ?? []), [], 'no CSP violation')
  assertClean(t, session)
})

t.test('a failed request-time loader: the hole shows the error section with the log line’s digest', async (t) => {
  const session = await suite.open(t)
  const logged = suite.serverLogs().length
  const response = await session.goto('/__test/partial?fail=1')
  t.equal(response.status(), 200)
  t.ok(await session.waitForHydration(), 'the page hydrates all the same')
  await session.settle()
  const line = suite
    .serverLogs()
    .slice(logged)
    .find((entry) => entry.msg === 'request-time data failed')
  t.ok(line?.digest, 'the server logged the failure with a digest')
  t.equal(await session.page.locator('.application-error-digest').textContent(), `Digest: ${String(line?.digest)}`)
  t.equal(await session.page.locator('#partial-title').textContent(), 'Partly prerendered', 'the shell stays')
  t.same(session.recording.pageErrors, [], 'no uncaught error')
})

t.test(
  'a partly prerendered page, loaded and navigated to, shows its kept and its request-time data with no error',
  async (t) => {
    const session = await suite.open(t)
    await session.goto(partialPage.path)
    t.ok(await session.waitForHydration(), 'hydrated')
    await session.settle()
    const kept = await session.page.locator('#partial-kept').textContent()
    t.match(kept, /^Kept: [0-9a-f-]{36}$/, 'loaded: the kept data')
    t.equal(
      await session.page.locator('#partial-live').textContent(),
      'For this request: none',
      'loaded: the request’s data',
    )
    assertClean(t, session)

    const navigated = await suite.open(t)
    await navigated.goto(staticPage.path)
    t.ok(await navigated.waitForHydration(), 'the static page hydrated')
    await navigated.page.locator(testNavLink(partialPage.path)).click()
    await navigated.page.locator('#partial-live').waitFor()
    t.equal(new URL(navigated.page.url()).pathname, partialPage.path)
    t.equal(await navigated.page.locator('#partial-kept').textContent(), kept, 'kept data, of the same kept version')
    t.equal(await navigated.page.locator('#partial-live').textContent(), 'For this request: none', 'request-time data')
    t.equal(await navigated.page.locator('#partial-fallback').count(), 0, 'its fallback is gone')
    const documents = navigated.recording.requests.filter((request) => request.resourceType === 'document')
    t.equal(documents.length, 1, 'a client navigation: one document load in all')
    await navigated.settle()
    assertClean(t, navigated)
  },
)
