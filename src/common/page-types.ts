/**
 * A page is one typed declaration. A site names its pages and the data each one's loader gives its component in one
 * map of page id -> data type (`SitePageData`, site/data-types.ts); the page table (site/pages.ts), the loaders
 * (src/pages/loaders.ts) and the components (client/page-modules.ts) each `satisfies` their table type below for that
 * map. So a page without a loader or a component, a loader or a component for no page, and a loader whose data is not
 * the data its component or head reads, are type errors (test/site/page-types.typecheck.ts shows each one), not
 * start-up or run-time errors. Types only: nothing here reaches a bundle.
 */
import type { ComponentType, ReactNode } from 'react'
import type { FaqData, Guide, GuideListPage, GuideSummary } from '../../site/data-types.ts'
import type { PageAnswer } from './page-data.ts'

export type PageKind = 'static' | 'dynamic'

export type RouteParams = Readonly<Record<string, string>>

export interface PageHead {
  title: string
  description?: string
}

/** The data type of a page that has none: it needs no loader (it is rendered with `{}`). */
export type NoData = Record<string, never>

/** What every page's entry in the page table says, typed by its data. */
interface PageEntryFields<Data> {
  /** Fastify/find-my-way pattern, e.g. `/guides/:slug`. */
  path: string
  /** `static`: loaded once per deployment, its document kept; `dynamic`: loaded for each request. */
  kind: PageKind
  /**
   * A `static` page's freshness, in seconds (docs/content.md): the kept version is served for this long; the first
   * request after it gets the kept version at once (marked stale) and starts one regeneration. Unset: kept until the
   * deployment ends or it is revalidated on demand (`POST /api/revalidate`).
   */
  revalidate?: number
  /** Title and meta of the page, from its data. */
  head: (data: Data, params: RouteParams) => PageHead
}

/**
 * `prerender: 'partial'`: a `dynamic` page whose data comes in two kinds (`PartialData`): what is kept per deployment
 * (and on revalidation, by `revalidate`) is prerendered once into a shell, and what each request loads fills the
 * shell's holes (docs/rendering.md "Partial prerendering"). Said exactly when the page's data is `PartialData`, so a
 * partly prerendered page's data and its declaration cannot disagree (test/site/page-types.typecheck.ts). Code that
 * holds pages of any data (`unknown`: the run-time page table) may say either.
 */
type PrerenderOf<Data> = unknown extends Data
  ? { prerender?: 'partial' }
  : [Data] extends [PartialData<unknown, unknown>]
    ? { kind: 'dynamic'; prerender: 'partial' }
    : { prerender?: never }

/** A page's entry in the page table, typed by its data. */
export type PageEntry<Data> = PageEntryFields<Data> & PrerenderOf<Data>

/**
 * The request-time data of a partly prerendered page as its component gets it: loaded (`value`), failed (`failed`:
 * the digest of its log line), or, on the server, still on its way (`pending`: the holes wait for it). The document
 * state and the page data carry the first two only.
 */
export type LiveData<Live> = { value: Live } | { failed: LiveFailure } | { pending: Promise<LiveData<Live>> }

/** A failed request-time loader, as its holes show it: the digest of its log line, and the host the request named. */
export interface LiveFailure {
  digest: string
  host: string
}

/** The data of a partly prerendered page (`prerender: 'partial'`): the kept part and the request-time part. */
export interface PartialData<Kept, Live> {
  kept: Kept
  live: LiveData<Live>
}

/** The page table of a map of page id -> data type: one entry per page, in matching order. */
export type PageTable<DataTypes> = { readonly [Id in keyof DataTypes]: PageEntry<DataTypes[Id]> }

/**
 * The site's content as loaders read it: Markdown under CONTENT_DIR, read again at each call (docs/content.md). The
 * server's src/content/content-source.ts is it; types only here.
 */
export interface SiteContent {
  /** Every guide, in order. */
  guides(): Promise<readonly Guide[]>
  /** The guides' summaries, in order, from the index of their front matter (docs/content.md "How many pages"). */
  guideSummaries(): Promise<readonly GuideSummary[]>
  /** One page of the list of guides, from the index; undefined for a page the list does not have. */
  guideListPage(page: number): Promise<GuideListPage | undefined>
  /** The guides before and after one in the list (its pager), from the index: no other guide's file is read. */
  guideNeighbours(slug: string): Promise<{ previous: GuideSummary | null; next: GuideSummary | null }>
  /**
   * When a guide last changed (front matter `updated` or `date`, else its file's modification time when the index read
   * this version of it), as an ISO 8601 date; with no slug, the newest of every guide's. Undefined when there is none.
   */
  guideLastModified(slug?: string): Promise<string | undefined>
  /** One guide, whole; undefined when there is none of that slug. */
  guide(slug: string): Promise<Guide | undefined>
  faq(): Promise<FaqData>
}

/** What a loader is told: the page's route parameters, the query (a `dynamic` page's only), the deployment and the
 * site's content. */
export interface LoaderContext {
  params: RouteParams
  query: Readonly<Record<string, unknown>>
  deploymentId: string
  content: SiteContent
}

/**
 * What a loader returns: a page answer (src/common/page-data.ts), whose props may name with `tags` what they were made of
 * (`guides`, `guide:<slug>`): a revalidation of a tag regenerates every kept page whose answer carries it
 * (docs/content.md). Tags stay on the server: the answer kept and sent is the page answer without them.
 */
export type LoaderAnswer<Data> =
  ({ props: Data } & { tags?: readonly string[] }) | Exclude<PageAnswer<Data>, { props: Data }>

/** A page's server-only loader: its props, a redirect or no such page (src/common/page-data.ts). */
export type Loader<Data> = (context: LoaderContext) => LoaderAnswer<Data> | Promise<LoaderAnswer<Data>>

export interface PageServerSide<Data> {
  load?: Loader<Data>
  /** Parameters of every instance of a parametrised page: feeds the sitemap. */
  staticParams?: (context: { content: SiteContent }) => RouteParams[] | Promise<RouteParams[]>
  /** When an instance last changed, ISO 8601: the sitemap's `lastmod` (none when unset or undefined). */
  lastModified?: (params: RouteParams, context: { content: SiteContent }) => Promise<string | undefined>
}

/**
 * The loaders of a partly prerendered page: `keep` once per deployment (and on revalidation), as a `static` page's,
 * `load` per request, as a `dynamic` page's. Its request-time loader cannot answer not-found or a redirect: the shell
 * has gone out with a 200 before it runs (an answer that is not props fails its holes).
 */
export interface PartialServerSide<Kept, Live> {
  keep: Loader<Kept>
  load: Loader<Live>
}

/** A page with data must have a loader; a page without (`NoData`) may have none; a partly prerendered page two. */
type ServerSideOf<Data> =
  Data extends PartialData<infer Kept, infer Live>
    ? PartialServerSide<Kept, Live>
    : NoData extends Data
      ? PageServerSide<Data>
      : PageServerSide<Data> & { load: Loader<Data> }

/** The loaders of a map of page id -> data type: one entry per page. */
export type LoaderTable<DataTypes> = { readonly [Id in keyof DataTypes]: ServerSideOf<DataTypes[Id]> }

/** What every page component receives: its page data and its route parameters. */
export interface PageComponentProps<Data> {
  data: Data
  params: RouteParams
}

/** The components of a map of page id -> data type: each page's code chunk, whose default export draws its data. */
export type ComponentTable<DataTypes> = {
  readonly [Id in keyof DataTypes]: () => Promise<{ default: ComponentType<PageComponentProps<DataTypes[Id]>> }>
}

/**
 * A page as run-time code holds it, whatever its data: the router, the server and the renderer match pages by path
 * and join them by id, and hand each page the data its own loader gave (the tables above were checked against one map,
 * so that data is the page's type). `head` is written as a method: TypeScript compares method parameters both ways,
 * so a typed entry is one of these without a cast, as @types/react does for its event handlers.
 */
export interface PageDefinition {
  /** Stable id: joins the server's loader and the client's code chunk (`client/pages/<id>.tsx`), travels in the
   * hydration state. */
  id: string
  path: string
  kind: PageKind
  /** A `static` page's freshness in seconds (`PageEntry`). */
  revalidate?: number
  /** `partial`: partly prerendered (`PageEntry`). */
  prerender?: 'partial'
  head(data: unknown, params: RouteParams): PageHead
}

/** A page's component as run-time code holds it, whatever its data (a method type, for the reason `head` is one). */
export type PageComponent = { draw(props: PageComponentProps<unknown>): ReactNode }['draw']

/** A page's code chunk as run-time code holds it. */
export interface PageModule {
  default: PageComponent
}
