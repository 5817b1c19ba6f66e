/**
 * What Chromium receives on the wire (docs/compression.md): the document (the stylesheet inline in it) and the entry
 * script compressed as its Accept-Encoding allows, and the page still hydrated, navigable and free of CSP violations.
 */
import t from 'tap'
import { startSuite, unexpectedConsoleErrors } from './harness.ts'
import { contentPage, staticPage, testNavLink } from './test-pages.ts'

const suite = await startSuite(t, { COURIER_TEST_ROUTES: 'true' })

t.test('the first load of a static page arrives compressed, and the page works', async (t) => {
  const session = await suite.open(t)
  const encodings = new Map<string, string | undefined>()
  session.page.on('response', async function recordEncoding(response) {
    const type = response.request().resourceType()
    if (type === 'document' || type === 'script' || type === 'stylesheet' || type === 'font') {
      // A response that arrives as the page closes (a prefetch at the end of the test) has no headers to read.
      const headers = await response.allHeaders().catch(() => undefined)
      if (headers) encodings.set(`${type} ${new URL(response.url()).pathname}`, headers['content-encoding'])
    }
  })
  const document = await session.goto(staticPage.path)
  t.equal(document.status(), 200)
  t.ok(await session.waitForHydration(), 'hydrated')
  await session.settle()
  t.equal((await document.allHeaders())['content-encoding'], 'gzip', 'the document: gzip, its parts compressed once')
  const entries = [...encodings.entries()]
  t.comment(`chromium gets: ${entries.map(([key, coding]) => `${key} ${coding ?? 'identity'}`).join(', ')}`)
  const entry = entries.find(([key]) => /^script \/_next\/static\/chunks\/index-/.test(key))
  t.equal(entry?.[1], 'br', 'the entry script: brotli, compressed at build time')
  t.notOk(
    entries.some(([key]) => key.startsWith('stylesheet ')),
    'no stylesheet request: it came inside the document',
  )
  t.match(
    await session.page.evaluate(() => getComputedStyle(globalThis.document.body).fontFamily),
    /^["']?Inter["']?,/,
    'the inline stylesheet applies (the body’s font family is its)',
  )
  const font = entries.find(([key]) => key.startsWith('font '))
  t.equal(font?.[1], undefined, 'the font goes as it is (woff2 is compressed already)')
  t.same(unexpectedConsoleErrors(session.recording), [], 'no console error, no CSP violation')
  t.same(session.recording.pageErrors, [])

  await session.page.click(testNavLink(contentPage.path))
  await session.page.waitForURL(`**${contentPage.path}`)
  t.equal(await session.page.title(), contentPage.title, 'a client navigation on compressed page data')
})
