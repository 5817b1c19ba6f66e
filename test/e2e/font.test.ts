/**
 * Body text is set in Inter, self-hosted: the font file comes from this server, is preloaded, and is what Chromium
 * actually uses (not a system fallback that happens to satisfy the CSS).
 */
import t from 'tap'
import { bounded, startSuite, timeouts } from './harness.ts'
import { staticPage } from './test-pages.ts'

const suite = await startSuite(t, { COURIER_TEST_ROUTES: 'true' })

t.test('body text is in Inter, served by this server', async (t) => {
  const session = await suite.open(t)
  await session.goto(staticPage.path)
  await session.settle()
  const readFonts = session.page.evaluate(async () => {
    await document.fonts.ready
    return {
      family: getComputedStyle(document.body).fontFamily,
      check: document.fonts.check('16px Inter'),
      // check() is also true when no @font-face is named Inter at all (a system font would do): require a loaded face.
      loadedFaces: [...document.fonts]
        .filter((face) => face.family.replace(/["']/g, '') === 'Inter' && face.status === 'loaded')
        .map((face) => face.unicodeRange),
      preloads: [...document.querySelectorAll<HTMLLinkElement>('link[rel="preload"][as="font"]')].map(
        (link) => link.href,
      ),
    }
  })
  const font = await bounded(readFonts, timeouts.settleMs, 'reading the fonts of the page')
  t.match(font.family, /^["']?Inter["']?(,|$)/, `the body's font family starts with Inter (${font.family})`)
  t.ok(font.check, "document.fonts.check('16px Inter') after document.fonts.ready")
  t.ok(font.loadedFaces.length > 0, `an Inter face is loaded (${font.loadedFaces.length})`)

  // What Chromium actually drew the lead paragraph with: every glyph from the web font, none from a system fallback.
  const cdp = await session.context.newCDPSession(session.page)
  await cdp.send('DOM.enable')
  await cdp.send('CSS.enable')
  const { root } = await cdp.send('DOM.getDocument', { depth: 0 })
  const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: 'main .lead' })
  const { fonts: rendered } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId })
  await cdp.detach()
  t.ok(rendered.length > 0, 'the lead paragraph was rendered')
  t.same(
    rendered.filter((face) => !face.isCustomFont || !/^Inter\b/.test(face.familyName)),
    [],
    `every glyph of the lead paragraph is drawn in Inter (${rendered.map((face) => face.familyName).join(', ')})`,
  )

  const fontRequests = session.recording.requests.filter((request) => new URL(request.url).pathname.endsWith('.woff2'))
  t.ok(fontRequests.length > 0, 'a woff2 file was fetched')
  // The page's text is all in the core subset: the rest of the Latin file is never downloaded for it.
  t.same(
    fontRequests
      .map((request) => new URL(request.url).pathname)
      .filter((pathname) => !/inter-core-wght-normal-/.test(pathname)),
    [],
    'only the core subset of Inter is fetched',
  )
  for (const request of fontRequests) {
    t.equal(new URL(request.url).origin, suite.origin, `${request.url} comes from the test server`)
    t.equal(request.status, 200, `${request.url} loaded`)
  }
  t.ok(font.preloads.length > 0, 'the font is preloaded')
  for (const href of font.preloads) {
    t.ok(
      fontRequests.some((request) => request.url === href),
      `the preloaded ${new URL(href).pathname} is the file fetched (no second download for the CSS)`,
    )
  }
})
