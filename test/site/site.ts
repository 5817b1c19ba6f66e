import type { SitePageData } from '../../site/data-types.ts'
import { pageTable } from '../../site/pages.ts'
import { pageLoaders } from '../../src/pages/loaders.ts'
import { joinPages } from '../../src/pages/site.ts'
import { testPageLoaders } from './loaders.ts'
import { testPageTable, type TestPageData } from './pages.ts'

/** The site's pages and the test build's, as a server run with COURIER_TEST_ROUTES serves them (src/pages/site.ts). */
export const testSitePages = joinPages<SitePageData & TestPageData>(
  { ...pageTable, ...testPageTable },
  { ...pageLoaders, ...testPageLoaders },
)
