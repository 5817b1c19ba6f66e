/**
 * Content codings in every engine (docs/compression.md): what each engine asks for (its own Accept-Encoding), which
 * coding each kind of answer comes in (a kept document, a streamed document, page data, the entry script), reported
 * per engine and checked against Courier's negotiation; then every answer in zstd, asked for by the suite's proxy in
 * the browser's place (browsers name zstd, and Courier's order among codings weighed alike rarely picks it), and the
 * page still hydrated, navigable and free of errors.
 */
import t, { type Test } from 'tap'
import { compression } from '../../../config/compression.ts'
import { negotiateCoding, type ContentCoding } from '../../../src/compression/negotiate.ts'
import { eventually, startJourneys, type JourneySession, type ProxiedRequest } from '../journey.ts'
import { contentPage, dynamicPage, staticPage, testNavLink } from '../test-pages.ts'

const suite = await startJourneys(t, { COURIER_TEST_ROUTES: 'true' })
const dataPrefix = `/_next/data/${suite.deploymentId}`

const codingOf = (request: ProxiedRequest | undefined) => request?.responseHeaders?.['content-encoding'] ?? 'identity'

/**
 * The answers of one visit to the test build's pages: a static page loaded (a kept document), a client navigation to
 * the content list (its page data), then the dynamic page loaded (a streamed document).
 */
async function visit(t: Test, session: JourneySession) {
  const home = await session.goto(staticPage.path)
  t.equal(home.status, 200, `${staticPage.path}: 200`)
  t.ok(await session.waitForHydration(), `${staticPage.path} hydrated`)
  const entry = await eventually(() =>
    session.requests().some((request) => /\/_next\/static\/chunks\/index-[^/]*\.js/.test(request.url)),
  )
  t.ok(entry, 'the entry script was fetched')
  await session.tab.click(testNavLink(contentPage.path))
  t.ok(
    await session.waitForHeading(contentPage.heading),
    `a client navigation to ${contentPage.path}, on its page data`,
  )
  const streamed = await session.goto(dynamicPage.path)
  t.equal(streamed.status, 200, `${dynamicPage.path}: 200`)
  t.ok(await session.waitForHydration(), `${dynamicPage.path} hydrated`)
  t.ok(await session.waitForHeading(dynamicPage.heading), 'the streamed page shows its content')
  t.same(await session.consoleErrors(), [], 'no console error, no page error')
  const requests = session.requests()
  return {
    acceptEncoding: String(home.headers['accept-encoding'] ?? ''),
    answers: {
      'kept document': home,
      'entry script': requests.find((request) => /\/_next\/static\/chunks\/index-[^/]*\.js/.test(request.url)),
      'page data': requests.find((request) => request.url.includes(`${dataPrefix}${contentPage.dataPath}`)),
      'streamed document': streamed,
    },
  }
}

const preferenceOf: Record<string, readonly ContentCoding[]> = {
  'kept document': compression.codingPreference.keptDocument,
  'entry script': compression.codingPreference.builtAsset,
  'page data': compression.codingPreference.pageData,
  'streamed document': compression.codingPreference.streamedDocument,
}

t.test('as the engine asks: each kind in the coding Courier negotiates for its Accept-Encoding', async (t) => {
  const session = await suite.open(t)
  const { acceptEncoding, answers } = await visit(t, session)
  const got = Object.entries(answers).map(([kind, request]) => `${kind} ${codingOf(request)}`)
  t.comment(`${suite.engine} sends Accept-Encoding "${acceptEncoding}" and gets: ${got.join(', ')}`)
  for (const [kind, request] of Object.entries(answers)) {
    t.ok(request, `${kind}: requested`)
    // The server's Accept-Encoding: the browser's, but for a document the proxy puts a script into (WebKit's), none.
    const forwarded = request?.forwardedAcceptEncoding
    t.equal(
      codingOf(request),
      negotiateCoding(forwarded, preferenceOf[kind]!),
      `${kind}: as negotiated for "${forwarded ?? '(none)'}"`,
    )
  }
})

t.test('every answer in zstd: the engine decodes it, and the page works', async (t) => {
  const session = await suite.open(t)
  // What the engine asks for, from a load that fetches nothing else (no script to cache in its own coding).
  const browserAsked = String((await session.goto('/robots.txt')).headers['accept-encoding'] ?? '')
  if (!/\bzstd\b/.test(browserAsked)) {
    // WebKitGTK 2.50 sends `gzip, deflate`: zstd is never its coding, from Courier or anyone.
    t.comment(`${suite.engine} names no zstd in its Accept-Encoding ("${browserAsked}"): not asked for zstd`)
    return
  }
  session.route(
    () => true,
    () => ({ acceptEncoding: 'zstd' }),
  )
  const { answers } = await visit(t, session)
  const got = Object.entries(answers).map(([kind, request]) => `${kind} ${codingOf(request)}`)
  t.comment(`${suite.engine}, asked for zstd: ${got.join(', ')}`)
  for (const [kind, request] of Object.entries(answers)) t.equal(codingOf(request), 'zstd', `${kind}: zstd`)
})
