import { pages as sitePages, type PageDefinition } from '../../site/pages.ts'
import { errors } from '../errors.ts'
import { pageLoaders, type PageServerSide } from './loaders.ts'
import { loadTestSitePages } from './test-site.ts'

/** A page as the server serves it: its entry of the page table joined with its server-only loader. */
export interface ServerPage extends PageDefinition, PageServerSide {}

/** The pages one server serves, loaded once at start-up (buildApp): the one server copy of the page table. */
export interface Site {
  pages: readonly ServerPage[]
  /** The pages a crawler is told of (the sitemap): a test build's own pages stay out. */
  publicPages: readonly ServerPage[]
}

/**
 * Joins page definitions with their loaders by page id. A loader without a page is a mistake in the table (a
 * renamed page): it stops start-up rather than silently never running.
 */
export function joinPages(
  definitions: readonly PageDefinition[],
  loaders: Readonly<Record<string, PageServerSide>>,
): readonly ServerPage[] {
  const ids = new Set(definitions.map((page) => page.id))
  for (const id of Object.keys(loaders)) {
    if (!ids.has(id)) throw new errors.OptionInvalid('loaders', `a loader for page ${id}, which the page table lacks`)
  }
  return Object.freeze(definitions.map((page) => Object.freeze({ ...page, ...loaders[page.id] })))
}

const productionPages = joinPages(sitePages, pageLoaders)

/**
 * The site to serve: the production pages, or with COURIER_TEST_ROUTES the test build's too (`/__test/...`, read from
 * test/site/ only then).
 */
export async function loadSite(testRoutes: boolean): Promise<Site> {
  if (!testRoutes) return { pages: productionPages, publicPages: productionPages }
  return { pages: await loadTestSitePages(), publicPages: productionPages }
}
