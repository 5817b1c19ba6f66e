/**
 * The site's pages as a test reaches them, from the server's page table (src/pages/site.ts) and the tests' own
 * content (test/helpers/content.ts), whatever pages the site has: a page without parameters at its path, a
 * parametrised one at each instance its `staticParams` names. And the test build's own pages (test/site/pages/),
 * on which the tests of Courier's mechanics run instead of the example's: a kept list of the content's guides, a kept
 * guide page with a parameter, a partly prerendered page.
 */
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { projectRoot } from '../../config/env.ts'
import { filterExclusions } from '../../config/request-filter.ts'
import { redirects as siteRedirects } from '../../site/request-filter.ts'
import { isPerUser, loadSite, type ServerPage, type Site } from '../../src/pages/site.ts'
import { testPage } from './page-table.ts'
import type { PageHead, RouteParams, SiteContent } from '../../src/common/page-types.ts'
import { siteContent } from './content.ts'

export interface PageInstance {
  page: ServerPage
  params: RouteParams
  url: string
}

/**
 * Every instance of every page of the site (`firstOnly`: one per page), in the table's order, from the tests' content
 * or the `content` given.
 */
export async function pageInstances({
  firstOnly = false,
  content = siteContent,
}: { firstOnly?: boolean; content?: SiteContent } = {}): Promise<PageInstance[]> {
  const instances: PageInstance[] = []
  // A per-user page needs a visitor to load: the tests never make one up (docs/your-site.md "Your tests").
  for (const page of (await loadSite(false)).publicPages.filter((candidate) => !isPerUser(candidate))) {
    const all = page.path.includes(':') ? ((await page.staticParams?.({ content })) ?? []) : [{}]
    for (const params of firstOnly ? all.slice(0, 1) : all) {
      instances.push({ page, params, url: page.path.replace(/:(\w+)/g, (_match, name: string) => params[name]!) })
    }
  }
  return instances
}

/**
 * The title a page instance's document carries: its head given the data its own loader gives now (from the tests'
 * content), never made-up data, which a site's head may not expect.
 */
export async function titleOf(instance: PageInstance, content: SiteContent = siteContent): Promise<string> {
  return (await headOfInstance(instance, content)).title
}

/** A page instance's head for the data its own loader gives now (from the tests' content). */
export async function headOfInstance(
  { page, params }: PageInstance,
  content: SiteContent = siteContent,
): Promise<PageHead> {
  const answer = page.load ? await page.load({ params, query: {}, deploymentId: 'test', content }) : { props: {} }
  if (!('props' in answer)) throw new Error(`${page.id} answers no props at ${JSON.stringify(params)}`)
  return page.head(answer.props, params)
}

/** The environment of a server that serves the test build's pages too (test/site/pages/). */
export const testRoutes = Object.freeze({ COURIER_TEST_ROUTES: 'true' })

/** The test build's kept list of the content's guides (`test-guides`), whatever pages the site has. */
export const testGuidesPath = testPage('test-guides').path

/** The test build's kept page of one guide of the content (`test-guide`), at `slug` (a guide or not). */
export function testGuidePath(slug: string): string {
  return testPage('test-guide').path.replace(':slug', slug)
}

/**
 * The site served with the test build's kept list of guides (`test-guides`) moved to the first page path the request
 * filter leaves alone by name (config/request-filter.ts), in place of whatever the site has there: a nonce-free,
 * byte-stable document on a page of the tests' own. For buildApp's `site` option, with `testRoutes`.
 */
export async function siteWithUnfilteredPage(): Promise<{ site: Site; path: string }> {
  const unfilteredPath = filterExclusions.exactPaths.find(
    (entry) => entry.length > 1 && !entry.includes('.') && !entry.endsWith('/'),
  )
  if (!unfilteredPath) throw new Error('config/request-filter.ts excludes no page path by name')
  const { pages, publicPages } = await loadSite(true)
  const moved = pages.find((page) => page.path === testGuidesPath)!
  const others = pages.filter((page) => page !== moved && page.path !== unfilteredPath)
  return {
    site: { pages: [...others, Object.freeze({ ...moved, path: unfilteredPath })], publicPages },
    path: unfilteredPath,
  }
}

/** The images of the site's public folder (client/public/images/, served at /images/), whatever they are, by name. */
export function publicImagePaths(): string[] {
  const folder = path.join(projectRoot, 'client', 'public', 'images')
  const names = readdirSync(folder)
    .filter((file) => /\.(jpe?g|png|webp|avif)$/.test(file))
    .sort()
  if (names.length === 0) throw new Error(`no image in ${folder}`)
  return names.map((name) => `/images/${name}`)
}

/** The first image of the site's public folder, whatever it is. */
export function publicImagePath(): string {
  return publicImagePaths()[0]!
}

/**
 * The site policy's first redirect with a parameter (site/request-filter.ts), whatever it is, with its parameters
 * given `value`: where it is asked and where it sends.
 */
export function configRedirect(value: string): { from: string; to: string; permanent: boolean } {
  const redirect = siteRedirects.find((candidate) => candidate.from.includes(':'))
  if (!redirect) throw new Error('site/request-filter.ts has no redirect with a parameter')
  const filled = (pattern: string) => pattern.replace(/:\w+/g, () => value)
  return { from: filled(redirect.from), to: filled(redirect.to), permanent: redirect.permanent }
}

/** The route of the test build's guide page, as Fastify names it (a metrics label, a span name). */
export const testGuideRoute = testPage('test-guide').path
