/**
 * The Content-Security-Policy in a real Chromium: every filtered page loads and hydrates with zero CSP violations,
 * its CSP nonce is the one on every script, and a script slipped into the document without the nonce does not run.
 * The pages are the test build's, one of each kind, and the site's own (its page table). A page the filter leaves out
 * (config/request-filter.ts) has no CSP and still works, and the same injection runs there, which proves it would run
 * anywhere the CSP did not stop it.
 */
import { createHash } from 'node:crypto'
import t, { type Test } from 'tap'
import type { Response } from 'playwright-core'
import { startSuite, type Session } from './harness.ts'
import { isUnfiltered, sitePagePaths, staticPage, testPagePaths, unfilteredPage } from './test-pages.ts'

const suite = await startSuite(t, { COURIER_TEST_ROUTES: 'true' })

interface Violation {
  directive: string
  blocked: string
  sample: string
}

declare global {
  interface Window {
    __cspViolations?: Violation[]
    __injectedRan?: boolean
    __noncedRan?: boolean
  }
}

/**
 * Collects `securitypolicyviolation` events from the first byte of every document (init scripts bypass the CSP): the
 * browser fires one for every refusal, including those it reports only in DevTools' own log.
 */
async function recordViolations(session: Session): Promise<void> {
  await session.context.addInitScript(() => {
    window.__cspViolations = []
    document.addEventListener('securitypolicyviolation', (event) => {
      window.__cspViolations!.push({
        directive: event.violatedDirective,
        blocked: event.blockedURI,
        sample: event.sample,
      })
    })
  })
}

async function violations(session: Session): Promise<Violation[]> {
  return session.page.evaluate(() => window.__cspViolations ?? [])
}

/** Console messages about the CSP (from the page's scripts; the browser's own refusals are the events above). */
function cspConsoleMessages(session: Session): string[] {
  return session.recording.console
    .filter((entry) => /Content Security Policy/i.test(entry.text))
    .map((entry) => entry.text)
}

function nonceOf(response: Response): string | undefined {
  return /'nonce-([^']+)'/.exec(response.headers()['content-security-policy'] ?? '')?.[1]
}

/** The nonce of every script element (the `nonce` property: Chromium hides the attribute's value once parsed), and
 * the text of those without one. */
async function scriptNonces(session: Session): Promise<{ nonces: string[]; withoutNonce: string[] }> {
  return session.page.evaluate(() => ({
    nonces: [...document.scripts].filter((script) => script.nonce).map((script) => script.nonce),
    withoutNonce: [...document.scripts].filter((script) => !script.nonce).map((script) => script.text),
  }))
}

/** A script's CSP hash source, as the server names it (src/render/shell-hash.ts). */
function hashSource(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`
}

async function checkPage(t: Test, path: string, expectCsp: boolean) {
  const session = await suite.open(t)
  await recordViolations(session)
  const response = await session.goto(path)
  t.equal(response.status(), path === '/no-such-page' ? 404 : 200, 'status')
  t.ok(await session.waitForHydration(), 'hydrated')
  await session.settle()
  const nonce = nonceOf(response)
  if (expectCsp) {
    t.ok(nonce, 'a CSP with a nonce')
    const { nonces, withoutNonce } = await scriptNonces(session)
    t.ok(nonces.length >= 2, `${nonces.length} scripts`)
    t.same([...new Set(nonces)], [nonce], 'every script with a nonce carries the header nonce')
    // A partly prerendered page's shell holds React's script without a nonce: the policy names its hash.
    const policy = response.headers()['content-security-policy'] ?? ''
    t.same(
      withoutNonce.filter((text) => !policy.includes(hashSource(text))),
      [],
      'every other script is allowed by its hash',
    )
  } else {
    t.equal(response.headers()['content-security-policy'], undefined, 'no CSP (excluded)')
  }
  t.same(await violations(session), [], 'no securitypolicyviolation event')
  t.same(cspConsoleMessages(session), [], 'no CSP message in the console')
  t.same(session.recording.pageErrors, [], 'no uncaught error')
}

t.test('every page loads and hydrates with zero CSP violations', async (t) => {
  for (const path of [...testPagePaths, ...sitePagePaths, '/no-such-page']) {
    await t.test(path, (t) => checkPage(t, path, !isUnfiltered(path)))
  }
})

/**
 * Serves `path` with scripts added to its HTML (the response's headers, CSP included, kept as sent). `snippet` gets
 * the nonce of the response, for a script that is meant to run.
 */
async function injectScripts(session: Session, path: string, snippet: (nonce: string) => string): Promise<Response> {
  await session.page.route(session.url(path), async (route) => {
    const original = await route.fetch()
    const nonce = /'nonce-([^']+)'/.exec(original.headers()['content-security-policy'] ?? '')?.[1] ?? ''
    const body = (await original.text()).replace('</body>', `${snippet(nonce)}</body>`)
    await route.fulfill({ response: original, body })
  })
  return session.goto(path)
}

/** A parser-inserted inline script without the nonce (what an HTML injection would add). */
const unnoncedScript = '<script>window.__injectedRan = true</script>'

t.test('an inline script without the nonce is blocked on a filtered page', async (t) => {
  const session = await suite.open(t)
  await recordViolations(session)
  const response = await injectScripts(
    session,
    staticPage.path,
    (nonce) =>
      // The control: the same script with the nonce runs, so the injection itself works.
      `${unnoncedScript}<script nonce="${nonce}">window.__noncedRan = true</script>`,
  )
  t.ok(nonceOf(response), 'the CSP came with the page')
  t.ok(await session.waitForHydration(), 'the page still hydrates')
  const ran = await session.page.evaluate(() => ({ injected: window.__injectedRan, nonced: window.__noncedRan }))
  t.equal(ran.nonced, true, 'the control: the injected script with the nonce runs')
  t.equal(ran.injected, undefined, 'the injected script without the nonce did not run')
  const blocked = (await violations(session)).filter(
    (violation) => /^script-src/.test(violation.directive) && violation.blocked === 'inline',
  )
  t.equal(blocked.length, 1, 'one violation, for it')
})

const unfiltered = { skip: unfilteredPage ? false : 'no page of the site is left out of the request filter' }
t.test(`the same injection runs on ${unfilteredPage}, which the filter leaves out`, unfiltered, async (t) => {
  const path = unfilteredPage!
  const session = await suite.open(t)
  const response = await injectScripts(session, path, () => unnoncedScript)
  t.equal(response.headers()['content-security-policy'], undefined, `no CSP on ${path}`)
  t.ok(await session.waitForHydration(), `${path} hydrates`)
  t.equal(await session.page.evaluate(() => window.__injectedRan), true, 'without a CSP the injected script runs')
})
