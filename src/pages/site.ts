import type { SitePageData } from '../../site/data-types.ts'
import type { Loader, LoaderTable, PageDefinition, PageServerSide, PageTable } from '../common/page-types.ts'
import { joinPartialPage } from './partial-page.ts'
import { listPages, pageTable } from '../../site/pages.ts'
import { pageLoaders } from './loaders.ts'
import { loadTestSitePages } from './test-site.ts'

/** A page as the server serves it: its entry of the page table joined with its server-only loader. */
export interface ServerPage extends PageDefinition, PageServerSide<unknown> {
  /**
   * A partly prerendered page's two halves (src/pages/partial-page.ts): its kept data as a `static` page of its own
   * (kept, shared and revalidated as one), and its request-time loader. Its `load` gives both, for its page data.
   */
  partial?: PartialPage
}

/** The two halves of a partly prerendered page (`ServerPage.partial`). */
export interface PartialPage {
  kept: ServerPage
  live: Loader<unknown>
  /** The page with its request-time loader alone, as a `dynamic` page: what its page data runs per request. */
  livePage: ServerPage
}

/** The pages one server serves, loaded once at start-up (buildApp): the one server copy of the page table. */
export interface Site {
  pages: readonly ServerPage[]
  /** The pages a crawler is told of (the sitemap): a test build's own pages stay out. */
  publicPages: readonly ServerPage[]
}

/**
 * Joins a page table with its loaders by page id, in the table's order. Both were checked against one map of page id
 * -> data type (src/common/page-types.ts): a page without its loader, or a loader without its page, does not compile.
 */
export function joinPages<DataTypes>(
  table: PageTable<DataTypes>,
  loaders: NoInfer<LoaderTable<DataTypes>>,
): readonly ServerPage[] {
  const byId: Readonly<Record<string, PageServerSide<unknown> & { keep?: Loader<unknown> }>> = loaders
  return Object.freeze(
    listPages(table).map((page): ServerPage => {
      const { keep, ...serverSide } = byId[page.id] ?? {}
      return Object.freeze(keep ? joinPartialPage(page, keep, serverSide.load) : { ...page, ...serverSide })
    }),
  )
}

const productionPages = joinPages<SitePageData>(pageTable, pageLoaders)

/**
 * The site to serve: the production pages, or with COURIER_TEST_ROUTES the test build's too (`/__test/...`, read from
 * test/site/ only then).
 */
export async function loadSite(testRoutes: boolean): Promise<Site> {
  if (!testRoutes) return { pages: productionPages, publicPages: productionPages }
  return { pages: await loadTestSitePages(), publicPages: productionPages }
}
