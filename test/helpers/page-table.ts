/**
 * The pages as the tests reach them, read from the page modules as a server reads them (src/pages/site.ts): the site's
 * own (`sitePages`: whatever pages it has), and the test build's (`testPage(id)`: test/site/pages/<id>.tsx).
 */
import type { ServerPage } from '../../src/pages/site.ts'
import { isPerUser, loadSite } from '../../src/pages/site.ts'

/** The site's pages, in matching order, whatever they are. */
export const sitePages: readonly ServerPage[] = (await loadSite(false)).pages

/**
 * The site's pages a visitor without an account sees as they are: all but the per-user ones (docs/forms.md
 * "Per-user pages"), which need a visitor Courier's tests would have to make up, and may redirect without one.
 */
export const publicSitePages: readonly ServerPage[] = sitePages.filter((page) => !isPerUser(page))

const withTestPages = await loadSite(true)

/** The test build's pages (and not the site's). */
export const testPages: readonly ServerPage[] = withTestPages.pages.filter(
  (page) => !sitePages.some((sitePage) => sitePage.id === page.id),
)

/** The test build's page `id` (test/site/pages/<id>.tsx). */
export function testPage(id: string): ServerPage {
  const page = testPages.find((candidate) => candidate.id === id)
  if (!page) throw new Error(`no test page ${id} in test/site/pages/`)
  return page
}
