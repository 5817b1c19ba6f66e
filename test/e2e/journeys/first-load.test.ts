/**
 * First load in every engine: each page answers, hydrates with Inter applied (served by this server), with no console
 * error, no uncaught error and no CSP violation, every script carrying the response's nonce; the 404 page likewise.
 * And the CSP holds: a script slipped into the document without the nonce does not run (where the filter applies).
 */
import { createHash } from 'node:crypto'
import t, { type Test } from 'tap'
import { startJourneys, type JourneySession } from '../journey.ts'
import { staticPage, testPagePaths, unfilteredPage } from '../test-pages.ts'

const suite = await startJourneys(t, { COURIER_TEST_ROUTES: 'true' })

interface Violation {
  directive: string
  blocked: string
}

/** Collects `securitypolicyviolation` events from the first script of every document. */
const recordViolations = `(() => {
  window.__cspViolations = []
  document.addEventListener('securitypolicyviolation', (event) => {
    window.__cspViolations.push({ directive: event.violatedDirective, blocked: event.blockedURI })
  })
})()`

/** Console errors but the engine's own report of the document's 404 (only on the 404 page, only that one). */
async function unexpectedErrors(t: Test, session: JourneySession, documentStatus: number): Promise<string[]> {
  let allowance = documentStatus === 404 ? 1 : 0
  const errors = (await session.consoleErrors()).filter((text) => {
    if (allowance > 0 && /\b404\b/.test(text) && /not found/i.test(text)) {
      allowance -= 1
      t.comment(`${suite.engine} reports the document's own 404 on the console: ${text}`)
      return false
    }
    return true
  })
  if (documentStatus === 404 && allowance > 0)
    t.comment(`${suite.engine} reports no console error for the document's 404`)
  return errors
}

async function checkPage(t: Test, path: string, expected: { status: number; csp: boolean }) {
  const session = await suite.open(t)
  await session.tab.addInitScript(recordViolations)
  const response = await session.goto(path)
  t.equal(response.status, expected.status, 'status')
  t.ok(await session.waitForHydration(), 'hydrated')
  const page = await session.evaluate(async () => {
    await document.fonts.ready
    return {
      family: getComputedStyle(document.body).fontFamily,
      interLoaded: [...document.fonts].some(
        (face) => face.family.replace(/["']/g, '') === 'Inter' && face.status === 'loaded',
      ),
      nonces: [...document.scripts].filter((script) => script.nonce).map((script) => script.nonce),
      // Scripts the policy governs: a data block (`type="application/json"`, a hole's request-time data, which React
      // may render again on the client, where no nonce is known) is never run, so CSP does not apply to it.
      withoutNonce: [...document.scripts]
        .filter((script) => !script.nonce && script.type !== 'application/json')
        .map((script) => script.text),
      preloadNonces: [...document.querySelectorAll<HTMLLinkElement>('link[rel="modulepreload"]')].map(
        (link) => link.nonce ?? '',
      ),
      dplId: document.documentElement.dataset.dplId ?? '',
      paintTiming: (PerformanceObserver.supportedEntryTypes ?? []).includes('paint'),
      paintAt: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
      scriptsAt: performance
        .getEntriesByType('resource')
        .filter((entry) => new URL(entry.name).pathname.endsWith('.js'))
        .map((entry) => entry.startTime),
      violations: (window as unknown as { __cspViolations?: Violation[] }).__cspViolations ?? null,
    }
  }, null)
  t.match(page.family, /^["']?Inter["']?(,|$)/, `the body is set in Inter (${page.family})`)
  t.ok(page.interLoaded, 'an Inter face is loaded')
  const fonts = session.requests().filter((request) => request.dest === 'font')
  t.ok(fonts.length > 0, 'a font file was fetched')
  t.ok(
    fonts.every((font) => font.url.startsWith(suite.origin) && font.status === 200 && /\.woff2\?/.test(font.url)),
    'every font is a woff2 of this server, answered 200',
  )
  t.same(page.violations, [], 'no securitypolicyviolation event')
  // The app's code starts after the first paint (src/render/entry-loader.ts): nothing competes with the font before.
  t.ok(page.scriptsAt.length >= 2, `the entry and the page's chunk were fetched (${page.scriptsAt.length} scripts)`)
  if (page.paintTiming) {
    const firstScriptAt = Math.min(...page.scriptsAt)
    t.ok(page.paintAt !== undefined, 'the engine reported its first contentful paint')
    t.ok(
      firstScriptAt >= (page.paintAt ?? Infinity),
      `no script asked for before the first paint (${firstScriptAt.toFixed(1)} >= ${page.paintAt?.toFixed(1)} ms)`,
    )
  } else {
    t.comment(`${suite.engine} has no paint timing: the loader started the code at once`)
  }
  const nonce = /'nonce-([^']+)'/.exec(String(response.responseHeaders?.['content-security-policy'] ?? ''))?.[1]
  if (expected.csp) {
    t.ok(nonce, 'a CSP with a nonce')
    // The suite's own init script comes with the nonce too where the proxy puts it into the document.
    t.same([...new Set(page.nonces)], [nonce], `every script with a nonce (${page.nonces.length}) carries the header's`)
    // A partly prerendered page's shell holds React's script without a nonce: the policy names its hash instead.
    const policy = String(response.responseHeaders?.['content-security-policy'] ?? '')
    const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`
    t.same(
      page.withoutNonce.filter((text) => !policy.includes(hashOf(text))),
      [],
      'every other script by its hash',
    )
    t.same(
      page.preloadNonces.filter((preload) => preload !== nonce),
      [],
      `every module preload (${page.preloadNonces.length}) carries it`,
    )
  } else {
    t.equal(nonce, undefined, 'no CSP (excluded from the filter)')
  }
  // Build assets: each carries this build's ?dpl=, and none is fetched twice (a preload and its import must agree).
  const assets = session.requests().filter((request) => ['script', 'style', 'font'].includes(request.dest))
  t.ok(
    assets.some((request) => request.dest === 'script'),
    'scripts were fetched (the checks below are not vacuous)',
  )
  t.same(
    assets
      .filter((request) => new URL(request.url).searchParams.get('dpl') !== page.dplId)
      .map((request) => request.url),
    [],
    `every script, style and font carries ?dpl=${page.dplId}`,
  )
  const paths = assets.map((request) => new URL(request.url).pathname)
  const twice = paths.filter((pathname, index) => paths.indexOf(pathname) !== index)
  t.same(twice, [], 'no asset fetched twice')
  if (twice.length > 0) {
    // What the reader needs to tell a page that loaded twice from two fetches of one chunk: every request in order.
    for (const request of session.requests()) {
      t.comment(`${request.dest} ${request.url} ${request.status ?? '-'}${request.aborted ? ' aborted' : ''}`)
    }
  }
  t.same(await unexpectedErrors(t, session, expected.status), [], 'no console error, no uncaught error')
  const offOrigin = session.requests().filter((request) => !request.url.startsWith(suite.origin))
  t.same(offOrigin, [], 'nothing fetched from another origin')
}

// The test build's pages, one of each kind, and the site's page that the request filter leaves out, if it has one.
for (const path of testPagePaths) t.test(path, (t) => checkPage(t, path, { status: 200, csp: true }))
const unfiltered = { skip: unfilteredPage ? false : 'no page of the site is left out of the request filter' }
t.test(`${unfilteredPage} (excluded from the filter: no CSP)`, unfiltered, (t) =>
  checkPage(t, unfilteredPage!, { status: 200, csp: false }),
)

t.test('the 404 page', async (t) => {
  await checkPage(t, '/no-such-page', { status: 404, csp: true })
  const session = await suite.open(t)
  await session.goto('/no-such-page')
  t.ok(await session.waitForHydration(), 'hydrated')
  const shown = await session.evaluate(
    () => ({
      title: document.title,
      status: document.querySelector('main h1 .error-status')?.textContent?.trim(),
      heading: document.querySelector('main h1 .error-title')?.textContent?.trim(),
      home: document.querySelector('main a[href="/"]')?.textContent?.trim(),
    }),
    null,
  )
  t.same(shown, {
    title: '404: This page could not be found',
    status: '404',
    heading: 'This page could not be found',
    home: 'Go to the home page',
  })
})

/** A parser-inserted inline script without the nonce (what an HTML injection would add), and with it, as a control. */
function injectScripts(session: JourneySession, path: string) {
  session.route(
    (pathAndQuery) => pathAndQuery === path,
    () => ({
      transformHtml: (html, nonce) =>
        html.replace(
          '</body>',
          `<script>window.__injectedRan = true</script><script nonce="${nonce ?? ''}">window.__noncedRan = true</script></body>`,
        ),
    }),
  )
}

function ran(session: JourneySession) {
  return session.evaluate(() => {
    const state = window as unknown as { __injectedRan?: boolean; __noncedRan?: boolean; __cspViolations?: Violation[] }
    return {
      injected: state.__injectedRan ?? false,
      nonced: state.__noncedRan ?? false,
      violations: state.__cspViolations ?? [],
    }
  }, null)
}

t.test('an inline script without the nonce is blocked on a filtered page', async (t) => {
  const session = await suite.open(t)
  await session.tab.addInitScript(recordViolations)
  injectScripts(session, staticPage.path)
  const response = await session.goto(staticPage.path)
  t.ok(/'nonce-/.test(String(response.responseHeaders?.['content-security-policy'])), 'the CSP came with the page')
  t.ok(await session.waitForHydration(), 'the page still hydrates')
  const outcome = await ran(session)
  t.equal(outcome.nonced, true, 'the control: the injected script with the nonce runs')
  t.equal(outcome.injected, false, 'the injected script without the nonce did not run')
  t.same(
    outcome.violations
      .filter((violation) => /^script-src/.test(violation.directive))
      .map((violation) => violation.blocked),
    ['inline'],
    'one script-src violation, for it',
  )
})

t.test(`the same injection runs on ${unfilteredPage}, which the filter leaves out`, unfiltered, async (t) => {
  const path = unfilteredPage!
  const session = await suite.open(t)
  injectScripts(session, path)
  const response = await session.goto(path)
  t.equal(response.responseHeaders?.['content-security-policy'], undefined, `no CSP on ${path}`)
  t.ok(await session.waitForHydration(), `${path} hydrates`)
  t.equal((await ran(session)).injected, true, 'without a CSP the injected script runs')
})
