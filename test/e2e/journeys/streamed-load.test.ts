/**
 * A page still streaming when it is first painted, in every engine: the entry loader (src/render/entry-loader.ts)
 * fetches the app's code from that paint, but runs the entry only once the document is whole, as the deferred module
 * script it replaces did. Hydrating earlier would find neither the page's state nor its late boundaries.
 */
import t from 'tap'
import { startJourneys } from '../journey.ts'

const suite = await startJourneys(t, { COURIER_TEST_ROUTES: 'true' })
const delayMs = 1_500

t.test(
  `a boundary that resolves after ${delayMs} ms: code fetched from the first paint, run once the document is whole`,
  async (t) => {
    const session = await suite.open(t)
    const response = await session.goto(`/__test/slow?delay=${delayMs}`)
    t.equal(response.status, 200)
    t.ok(await session.waitForHydration(), 'hydrated')
    const page = await session.evaluate(() => {
      const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined
      const entry = performance
        .getEntriesByType('resource')
        .find((resource) => /\/_next\/static\/chunks\/index-[^/?]+\.js\?/.test(resource.name))
      return {
        paintTiming: (PerformanceObserver.supportedEntryTypes ?? []).includes('paint'),
        paintAt: performance.getEntriesByName('first-contentful-paint')[0]?.startTime,
        entryFetchedAt: entry?.startTime,
        parsedAt: navigation?.domContentLoadedEventStart,
        section: document.getElementById('slow-section')?.textContent ?? null,
      }
    }, null)
    t.equal(page.section, `Resolved after ${delayMs} ms.`, 'the late boundary is in the hydrated page')
    t.same(await session.consoleErrors(), [], 'no console error: hydration found the state and the whole document')
    t.ok(
      page.entryFetchedAt !== undefined && page.parsedAt !== undefined,
      'the entry was fetched; the document was parsed',
    )
    if (!page.paintTiming) return t.comment(`${suite.engine} has no paint timing: the loader started the code at once`)
    t.ok(
      page.entryFetchedAt! >= page.paintAt!,
      `the entry was fetched after the first paint (${page.entryFetchedAt?.toFixed(0)} >= ${page.paintAt?.toFixed(0)} ms)`,
    )
    if (page.paintAt! < page.parsedAt!) {
      t.ok(
        page.entryFetchedAt! < page.parsedAt!,
        `the shell was painted while the page streamed, and the entry fetched then (${page.entryFetchedAt?.toFixed(0)} ms, parsed at ${page.parsedAt?.toFixed(0)} ms)`,
      )
    } else {
      // WebKit paints a streaming document only once it is whole (docs/browsers.md "Differences between engines that the tests found").
      t.comment(
        `${suite.engine} painted first at ${page.paintAt?.toFixed(0)} ms, once the document was whole (${page.parsedAt?.toFixed(0)} ms)`,
      )
    }
  },
)
