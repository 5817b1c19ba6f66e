/**
 * An unknown path, and a parameter its page's loader does not know (the loader's "not found"), show the 404 page in
 * the site's layout, hydrated.
 */
import t from 'tap'
import { startSuite } from './harness.ts'
import { contentItemPath } from './test-pages.ts'

const suite = await startSuite(t, { COURIER_TEST_ROUTES: 'true' })

// A path no route has, and a slug the test build's content page does not know (its loader's "not found").
for (const path of ['/no-such-page', contentItemPath('no-such-guide')]) {
  t.test(`an unknown path (${path}) shows the 404 page`, async (t) => {
    const session = await suite.open(t)
    const text = async (selector: string) =>
      ((await session.page.locator(selector).first().textContent()) ?? '').replace(/\s+/g, ' ').trim()
    const response = await session.goto(path)
    t.equal(response.status(), 404)
    t.ok(await session.waitForHydration(), 'hydrated')
    t.equal(await session.page.title(), '404: This page could not be found')
    t.equal(await text('main h1 .error-status'), '404')
    t.equal(await text('main h1 .error-title'), 'This page could not be found')
    t.equal(
      await session.page.getByRole('link', { name: 'Go to the home page' }).getAttribute('href'),
      '/',
      'the error page leads home',
    )
    t.ok(
      (await session.page.getByRole('navigation').getByRole('link').count()) > 0,
      "in the site's layout: its navigation",
    )
  })
}
