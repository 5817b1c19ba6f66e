/**
 * The site's pages as a test reaches them, from the server's page table (src/pages/site.ts) and the tests' own
 * content (test/helpers/content.ts), whatever pages the site has: a page without parameters at its path, a
 * parametrised one at each instance its `staticParams` names.
 */
import { loadSite, type ServerPage } from '../../src/pages/site.ts'
import type { RouteParams } from '../../site/page-types.ts'
import { siteContent } from './content.ts'

export interface PageInstance {
  page: ServerPage
  params: RouteParams
  url: string
}

/** Every instance of every page of the site (`firstOnly`: one per page), in the table's order. */
export async function pageInstances({ firstOnly = false } = {}): Promise<PageInstance[]> {
  const instances: PageInstance[] = []
  for (const page of (await loadSite(false)).publicPages) {
    const all = page.path.includes(':') ? ((await page.staticParams?.({ content: siteContent })) ?? []) : [{}]
    for (const params of firstOnly ? all.slice(0, 1) : all) {
      instances.push({ page, params, url: page.path.replace(/:(\w+)/g, (_match, name: string) => params[name]!) })
    }
  }
  return instances
}

/**
 * The page that shows one guide of the content, whatever the site calls it: the parametrised page whose instances are
 * the content's guides (its `staticParams` lists their slugs), and the path of a guide on it.
 */
export async function guidePage(): Promise<{ page: ServerPage; pathOf(slug: string): string }> {
  const slugs = (await siteContent.guideSummaries()).map((guide) => guide.slug).sort()
  for (const page of (await loadSite(false)).pages) {
    const names = [...page.path.matchAll(/:(\w+)/g)].map((match) => match[1]!)
    if (page.kind !== 'static' || names.length !== 1 || !page.staticParams) continue
    const listed = (await page.staticParams({ content: siteContent })).map((params) => params[names[0]!]).sort()
    if (JSON.stringify(listed) === JSON.stringify(slugs)) return { page, pathOf: (slug) => page.path.replace(`:${names[0]}`, slug) }
  }
  throw new Error('no page of the site shows one guide of the content')
}
