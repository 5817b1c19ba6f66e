/**
 * Pages of the site the browser suite may navigate between without naming the example's: found from the page table
 * (site/pages.ts) and what the site's main navigation links, whatever pages a site has.
 */
import { pages, type PageDefinition } from '../../site/pages.ts'

export interface LinkedPage {
  path: string
  /** Its page data's path below `/_next/data/<deployment id>`. */
  dataPath: string
  /** The document title its head gives. */
  title: string
}

/**
 * A page the main navigation links (`hrefs`, in the navigation's order) that is `static`, without parameters and
 * without `revalidate`: its prefetched data stays fresh for the router's static stale time (config/router.ts). Not
 * `except` (the page the test starts on). A page without parameters reads no data in its head.
 */
export function staticLinkedPage(hrefs: readonly string[], except: string): LinkedPage {
  const isCandidate = (page: PageDefinition) => page.kind === 'static' && page.revalidate === undefined && !page.path.includes(':')
  const page = hrefs.filter((href) => href !== except).map((href) => pages.find((candidate) => candidate.path === href)).find((candidate) => candidate && isCandidate(candidate))
  if (!page) throw new Error(`the main navigation (${hrefs.join(', ')}) links no static page without parameters and without revalidate`)
  return { path: page.path, dataPath: `${page.path === '/' ? '/index' : page.path}.json`, title: page.head(undefined, {}).title }
}

/** The hrefs of the main navigation's links, in order, as a page shows them. */
export function mainNavigationHrefs(): string[] {
  return [...document.querySelectorAll('nav[aria-label="Main"] a')].map((link) => link.getAttribute('href') ?? '')
}
