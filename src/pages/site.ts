import type {
  Action,
  Loader,
  LoaderAnswer,
  LoaderContext,
  PageDeclared,
  PageDefinition,
  PageRequest,
  PageServerExtras,
} from '../common/page-types.ts'
import { errors } from '../errors.ts'
import { testPageFolder } from './page-files.ts'
import { loadPageSources, type PageSource } from './page-sources.ts'
import { joinPartialPage } from './partial-page.ts'

/**
 * A loader as the server runs it: told the request too when it has one, which a per-request loader reads (the server
 * always gives one to a `dynamic` page's; src/pages/version-source.ts makes reading it from a kept one throw).
 */
export type ServerLoader = (
  context: LoaderContext & { readonly request?: PageRequest },
) => LoaderAnswer<unknown> | Promise<LoaderAnswer<unknown>>

/** A page as the server serves it: its module's declaration joined with its server half's loaders. */
export interface ServerPage extends PageDefinition, PageServerExtras {
  load?: ServerLoader
  /** What a `POST` to the page's path runs (docs/forms.md). */
  action?: Action<unknown>
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

/** The pages one server serves, loaded once at start-up (buildApp): the one server copy of the pages. */
export interface Site {
  pages: readonly ServerPage[]
  /** The pages a crawler is told of (the sitemap): neither the test build's nor those declared `sitemap: false`. */
  publicPages: readonly ServerPage[]
}

/** What a server half may export: its loaders and the sitemap's helpers. */
const serverExports = new Set(['load', 'keep', 'action', 'staticParams', 'lastModified'])

/** The declaration a page module exports, checked: a declaration the compiler did not see (plain JavaScript, a cast)
 * fails here, with its file, rather than as a wrong page at run time. */
function declarationOf(source: PageSource): PageDeclared {
  const { file, module } = source
  const invalid = (problem: string) => new errors.PageModuleInvalid(file, problem)
  const page = module.page as Partial<PageDeclared> | undefined
  if (typeof page !== 'object' || page === null) throw invalid('no `page` export (export const page = definePage(...))')
  if (typeof module.default !== 'function') throw invalid('no default export: the page component')
  if (typeof page.path !== 'string' || !page.path.startsWith('/')) throw invalid('`page.path` is not a path (/...)')
  if (page.kind !== 'static' && page.kind !== 'dynamic') throw invalid("`page.kind` is neither 'static' nor 'dynamic'")
  if (typeof page.head !== 'function') throw invalid('`page.head` is not a function')
  return page as PageDeclared
}

/** The loaders a server half exports, checked against what a page's kind asks of it. */
function serverHalfOf(
  source: PageSource,
  page: PageDeclared,
): PageServerExtras & { load?: Loader<unknown>; keep?: Loader<unknown> } {
  const server = source.server ?? {}
  const file = source.serverFile ?? source.file
  const unknown = Object.keys(server).filter((name) => !serverExports.has(name))
  if (unknown.length > 0) {
    throw new errors.PageModuleInvalid(
      file,
      `exports ${unknown.join(', ')}; a server half exports ${[...serverExports].join(', ')} only`,
    )
  }
  for (const name of serverExports) {
    if (server[name] !== undefined && typeof server[name] !== 'function')
      throw new errors.PageModuleInvalid(file, `\`${name}\` is not a function`)
  }
  const perRequest = (loader: unknown) => (loader as { perRequest?: unknown } | undefined)?.perRequest === true
  if (perRequest(server.keep)) {
    throw new errors.PageModuleInvalid(
      file,
      '`keep` reads the request, but a shell is kept for every visitor: read it in `load` (the holes)',
    )
  }
  if (perRequest(server.load) && page.kind === 'static') {
    throw new errors.PageModuleInvalid(
      file,
      "`load` reads the request (a per-user page) but the page is declared static, kept for every visitor: declare kind: 'dynamic'",
    )
  }
  if ((page.prerender === 'partial') !== (server.keep !== undefined)) {
    throw new errors.PageModuleInvalid(
      file,
      "a partly prerendered page (prerender: 'partial') has a `keep` loader, and only it",
    )
  }
  return server as PageServerExtras & { load?: Loader<unknown>; keep?: Loader<unknown> }
}

/** A page from its two files. */
function serverPageOf(source: PageSource): ServerPage {
  const declared = declarationOf(source)
  const { keep, ...serverSide } = serverHalfOf(source, declared)
  const page: PageDefinition = { ...declared, id: source.id }
  return Object.freeze(keep ? joinPartialPage(page, keep, serverSide.load) : { ...page, ...serverSide })
}

/**
 * A path's rank among pages that could match the same URL: segment by segment, a literal before a parameter, as the
 * server's router (find-my-way) prefers it, so the client router, which matches in this order, agrees with it.
 */
function specificity(path: string): number[] {
  return path
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? 1 : 0))
}

function compareSpecificity(a: ServerPage, b: ServerPage): number {
  const [left, right] = [specificity(a.path), specificity(b.path)]
  for (let index = 0; index < Math.min(left.length, right.length); index++) {
    if (left[index] !== right[index]) return left[index]! - right[index]!
  }
  return left.length - right.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
}

/**
 * Joins the page sources into the pages a server serves, in matching order: checks each module (a missing export, a
 * stray one, a partly prerendered page without its kept loader: an error naming the file) and that no two pages
 * share a path.
 */
export function joinPageSources(sources: readonly PageSource[]): readonly ServerPage[] {
  const pages = sources.map(serverPageOf).sort(compareSpecificity)
  const byPath = new Map<string, PageSource>()
  for (const source of sources) {
    const path = (source.module.page as PageDeclared).path.replace(/:\w+/g, ':')
    const other = byPath.get(path)
    if (other) throw new errors.PageModuleInvalid(source.file, `its path is ${other.file}'s too`)
    byPath.set(path, source)
  }
  return Object.freeze(pages)
}

/** Whether a page is per-user: its loader reads the request (docs/forms.md "Per-user pages"), its holes' aside. */
export function isPerUser(page: ServerPage): boolean {
  return !page.partial && (page.load as { perRequest?: unknown } | undefined)?.perRequest === true
}

/**
 * The pages of a crawler's sitemap: the site's own, but for those declared `sitemap: false` and, unless declared
 * `sitemap: true`, the per-user ones (a crawler has no account: it would index a sign-in redirect).
 */
export function publicPagesOf(pages: readonly ServerPage[], sources: readonly PageSource[]): readonly ServerPage[] {
  const testIds = new Set(
    sources.filter((source) => source.file.startsWith(`${testPageFolder}/`)).map((source) => source.id),
  )
  const listed = (page: ServerPage) => page.sitemap ?? !isPerUser(page)
  return Object.freeze(pages.filter((page) => !testIds.has(page.id) && listed(page)))
}

/**
 * The site to serve: its pages (site/pages/), and with COURIER_TEST_ROUTES the test build's too (`/__test/...`, from
 * test/site/pages/).
 */
export async function loadSite(testRoutes: boolean): Promise<Site> {
  const sources = await loadPageSources(testRoutes)
  const pages = joinPageSources(sources)
  return { pages, publicPages: publicPagesOf(pages, sources) }
}
