/**
 * The test build's pages the browser suite navigates between (test/site/pages/, served with COURIER_TEST_ROUTES):
 * their paths, page-data paths, titles and headings, and the links of their own navigation. No test names, clicks or
 * counts on a page of the example; what the content pages show comes from the tests' content (test/helpers/content.ts).
 */
import { filterExclusions } from '../../config/request-filter.ts'
import { isPageChunk } from '../helpers/changed-build.ts'
import { guides } from '../helpers/content.ts'
import { sitePages as pages, testPage as testPageOf, testPages } from '../helpers/page-table.ts'
import { testTitled } from '../site/test-title.ts'

export interface TestPage {
  path: string
  /** Its page data's path below `/_next/data/<deployment id>`. */
  dataPath: string
  /** The document title its head gives. */
  title: string
  /** Its `main h1`. */
  heading: string
}

function testPage(path: string, title: string, heading: string): TestPage {
  return { path, dataPath: `${path}.json`, title, heading }
}

/** A page of the test table whose head reads no data, and its heading. */
type PageWithoutParameters = 'test-static' | 'test-dynamic' | 'test-guides' | 'test-filter' | 'test-partial'

function tablePage(id: PageWithoutParameters, heading: string): TestPage {
  const page = testPageOf(id)
  return testPage(page.path, page.head({}, {}).title, heading)
}

/** A static page without data or `revalidate`: its prefetched data stays fresh the router's static stale time. */
export const staticPage = tablePage('test-static', 'A static page')
/** A dynamic page: its data is fetched at every navigation, never prefetched; it shows the deployment id. */
export const dynamicPage = tablePage('test-dynamic', 'A dynamic page')
/** The list of the content's guides (static, `revalidate`, tagged `guides`), each linking its page. */
export const contentPage = tablePage('test-guides', 'Guides of the content')
/** A list with a filter box and a count (static, `revalidate`): the questions and answers of the content. */
export const filterPage = tablePage('test-filter', 'Filter')
/** A partly prerendered page: a kept shell with a hole of request-time data (test/site/pages/test-partial.tsx). */
export const partialPage = tablePage('test-partial', 'Partly prerendered')

/** The path of the page of the content's guide `slug` (static, `revalidate`; an unknown slug is a 404). */
export function contentItemPath(slug: string): string {
  return testPageOf('test-guide').path.replace(':slug', slug)
}

/** The page of one guide of the content: its title is the guide's. */
export function contentItemPage(guide: { slug: string; title: string }): TestPage {
  return testPage(contentItemPath(guide.slug), testTitled(guide.title), guide.title)
}

/** The `revalidate` of the content pages, in seconds. */
export const contentRevalidateS = testPageOf('test-guide').revalidate!

/** The link to `path` in the test pages' own navigation (test/site/test-nav.tsx). */
export function testNavLink(path: string): string {
  return `nav[aria-label="Test pages"] a[href="${path}"]`
}

/** The link to a guide's page on the content list. */
export function contentLink(guide: { slug: string }): string {
  return `main .content-list a[href="${contentItemPath(guide.slug)}"]`
}

/** Whether `url` is the script chunk of a page of the test build other than page `except`: a prefetch's code. */
export function isChunkOfAnotherPage(url: string, except: string): boolean {
  const file = new URL(url).pathname.split('/').pop() ?? ''
  return [...pages, ...testPages].some((page) => page.id !== except && isPageChunk(page.id, file))
}

/** One test page of each kind: static, static with content, with parameters, dynamic, partly prerendered. */
export const testPagePaths: readonly string[] = [
  staticPage.path,
  contentPage.path,
  contentItemPage(guides[0]!).path,
  filterPage.path,
  dynamicPage.path,
  partialPage.path,
]

/** The site's own pages without parameters, read from its page table: whatever pages the site has. */
export const sitePagePaths: readonly string[] = pages
  .filter((page) => !page.path.includes(':'))
  .map((page) => page.path)

/** Whether the request filter leaves the page at `path` out (config/request-filter.ts): it has no CSP. */
export function isUnfiltered(path: string): boolean {
  return filterExclusions.exactPaths.includes(path)
}

/** A page of the site that the request filter leaves out, if the site has one. */
export const unfilteredPage: string | undefined = sitePagePaths.find(isUnfiltered)
