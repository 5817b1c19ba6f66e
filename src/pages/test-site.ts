import type { ServerPage } from './site.ts'

/**
 * The test build's pages (test/site/) joined with the site's: read only when COURIER_TEST_ROUTES asks for them. From
 * the TypeScript sources (the suites, `npm run dev`) they are imported from the tests' folder; the server build
 * (src/build/server-build.ts) replaces this module: the test build's server bundles them, the production build's
 * refuses with COURIER_ERR_TEST_ROUTES_UNAVAILABLE and holds no test code.
 */
export async function loadTestSitePages(): Promise<readonly ServerPage[]> {
  const testSite = new URL('../../test/site/site.ts', import.meta.url)
  const { testSitePages } = (await import(testSite.href)) as { testSitePages: readonly ServerPage[] }
  return testSitePages
}
