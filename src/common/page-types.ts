/**
 * A page is one module (docs/your-site.md): `site/pages/<id>.tsx` declares it (`export const page = definePage(...)`:
 * its path, kind, freshness and head) and draws it (its default export), and an optional `site/pages/<id>.server.ts`
 * beside it loads its data. The page's data type flows from that server half's loader to its head and component
 * (`definePage<typeof server>`, `PageProps<typeof server>`), so a head or a component that reads another shape than
 * the loader gives, a page with data but no loader, and a partly prerendered declaration without its two loaders are
 * type errors (test/site/page-types.typecheck.ts shows each one). Types only, but for nothing: nothing here reaches a
 * bundle.
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
  /**
   * `false`: the page stays out of the sitemap (a form's thank-you page); `true`: in it even when per-user. Unset: in
   * it, but for a per-user page (a loader of `defineRequestLoader`), which a crawler cannot see.
   */
  sitemap?: boolean
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

/** What a page module declares (`export const page = definePage(...)`), typed by its data. */
export type PageDeclaration<Data> = PageEntryFields<Data> & PrerenderOf<Data>

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
 * site's content. Nothing of the request: what a kept page's loader gives is shared by every visitor. */
export interface LoaderContext {
  params: RouteParams
  query: Readonly<Record<string, unknown>>
  deploymentId: string
  content: SiteContent
}

/**
 * The request as a per-request loader reads it (`defineRequestLoader`): its headers, its cookies and its session. A
 * page whose loader reads it is per-user: only a `dynamic` page (or a partly prerendered page's request-time half,
 * its holes) may have one, and its answers are never kept, shared or cached publicly (docs/forms.md).
 */
export interface PageRequest {
  /** The request's headers, names in lowercase. */
  headers: Readonly<Record<string, string | string[] | undefined>>
  /** The request's cookies by name. */
  cookies: Readonly<Record<string, string | undefined>>
  /** The visitor's session (docs/sessions.md). */
  session: PageSession
}

/**
 * The visitor's session as a per-request loader or an action reads it: who signed in, and small values of the site's
 * own. Kept server-side (docs/sessions.md), named by a signed cookie.
 */
export interface PageSession {
  /** Who signed in (`signIn`), or undefined: nobody. The session is read from its store on first use. */
  userId(): Promise<string | undefined>
  get(key: string): Promise<unknown>
  /** Keeps a small (JSON) value in the session, starting one if the visitor had none. */
  set(key: string, value: unknown): Promise<void>
  /** Signs `userId` in: a new session (and cookie) replaces whatever the visitor had, so a planted one is worthless. */
  signIn(userId: string): Promise<void>
  /** Ends the session server-side: its cookie names nothing any more, wherever it was copied to. */
  signOut(): Promise<void>
}

/** What a per-request loader is told: a loader's context and the request. */
export interface RequestLoaderContext extends LoaderContext {
  request: PageRequest
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

/** A loader that reads the request (`defineRequestLoader`): marked so, for the compiler and for the server's start. */
export type RequestLoader<Data> = ((
  context: RequestLoaderContext,
) => LoaderAnswer<Data> | Promise<LoaderAnswer<Data>>) & { readonly perRequest: true }

/** A form's fields as an action reads them: each name's value, or its values when the form sent it more than once. */
export type FormFields = Readonly<Record<string, string | readonly string[]>>

/** What an action is told: a per-request loader's context, and the form it was sent. */
export interface ActionContext extends RequestLoaderContext {
  form: FormFields
}

/**
 * What an action answers (docs/forms.md): a redirect (sent as `303 See Other`, so the browser then GETs the
 * destination, and a reload never sends the form twice), or the submission refused (`invalid`): the same page shown
 * again with this as its `actionData` (the errors by field and the values to keep), with `status` 422 (or 400).
 */
export type ActionAnswer<Invalid> = { redirect: { destination: string } } | { invalid: Invalid; status?: 400 | 422 }

/** At most `max` submissions per client within `windowMs`; beyond, a 429 with `Retry-After` (docs/forms.md). */
export interface ActionRateLimit {
  max: number
  windowMs: number
}

/** A page's action: what a `POST` to its own path runs (`defineAction`), and its rate limit when it has one. */
export type Action<Invalid> = ((context: ActionContext) => ActionAnswer<Invalid> | Promise<ActionAnswer<Invalid>>) & {
  readonly perRequest: true
  readonly rateLimit?: ActionRateLimit
}

/** The `actionData` an action gives its page when it refuses a submission (none without an action). */
export type ActionDataOf<Server> = Server extends { action: Action<infer Invalid> } ? Invalid : never

/** What a page's server half may export beside its loaders. */
export interface PageServerExtras {
  /** Parameters of every instance of a parametrised page: feeds the sitemap. */
  staticParams?: (context: { content: SiteContent }) => RouteParams[] | Promise<RouteParams[]>
  /** When an instance last changed, ISO 8601: the sitemap's `lastmod` (none when unset or undefined). */
  lastModified?: (params: RouteParams, context: { content: SiteContent }) => Promise<string | undefined>
}

/** A parametrised page's instances, for the sitemap (`export const staticParams: StaticParams = ...`). */
export type StaticParams = NonNullable<PageServerExtras['staticParams']>

/** When a page's instance last changed, for the sitemap (`export const lastModified: LastModified = ...`). */
export type LastModified = NonNullable<PageServerExtras['lastModified']>

/**
 * A page's server half, `<id>.server.ts`: its loader (`load`), for a partly prerendered page also its kept loader
 * (`keep`: once per deployment and on revalidation, as a `static` page's; `load` then runs per request and cannot
 * answer not-found or a redirect: the shell has gone out with a 200 before it runs), and the sitemap's helpers.
 */
export interface PageServerModule extends PageServerExtras {
  load?: Loader<unknown> | RequestLoader<unknown>
  keep?: Loader<unknown>
  action?: Action<unknown>
}

/**
 * The props a loader gives (its answers' `props`). A loader that may also answer not-found or a redirect returns a
 * union of object literals, which TypeScript normalises by giving each member the others' properties as optional
 * `undefined`: that `undefined` is no props a page gets, and is dropped.
 */
export type PropsOf<L> =
  L extends RequestLoader<infer Data>
    ? Exclude<Data, undefined>
    : L extends Loader<infer Data>
      ? Exclude<Data, undefined>
      : never

/** The data of a page, from its server half's type: a partly prerendered page's two kinds, a loader's props, or none. */
export type DataOf<Server> = Server extends { keep: infer Keep; load: infer Load }
  ? PartialData<PropsOf<Keep>, PropsOf<Load>>
  : Server extends { load: infer Load }
    ? PropsOf<Load>
    : NoData

/**
 * A page whose loader reads the request is per-user: `dynamic` only, so nothing of it is kept or shared. (A partly
 * prerendered page's request-time loader may read it: its shell's loader, `keep`, cannot.)
 */
export type PerUserOf<Server> = Server extends { keep: unknown }
  ? unknown
  : Server extends { load: RequestLoader<unknown> }
    ? { kind: 'dynamic'; revalidate?: never }
    : unknown

/** What a page's component receives, from its server half's type (`PageProps<typeof server>`; none: no data). */
export type PageProps<Server = Record<never, never>> = PageComponentProps<DataOf<Server>, ActionDataOf<Server>>

/**
 * What every page component receives: its page data and its route parameters, and after a submission its action
 * refused, what the action said (`actionData`: errors by field, the values sent).
 */
export interface PageComponentProps<Data, ActionData = never> {
  data: Data
  params: RouteParams
  actionData?: ActionData
}

/**
 * A page's declaration as run-time code holds it, whatever its data: the router, the server and the renderer match
 * pages by path and hand each page the data its own loader gave (`definePage<typeof server>` checked that data against
 * its head and component). `head` is written as a method: TypeScript compares method parameters both ways, so a typed
 * declaration is one of these without a cast, as @types/react does for its event handlers.
 */
export interface PageDeclared {
  path: string
  kind: PageKind
  /** A `static` page's freshness in seconds (`PageDeclaration`). */
  revalidate?: number
  /** `partial`: partly prerendered (`PageDeclaration`). */
  prerender?: 'partial'
  /** `false`: not in the sitemap. */
  sitemap?: boolean
  head(data: unknown, params: RouteParams): PageHead
}

/** A page as the server and the renderer hold it: its declaration and its id, the name of its module's file. */
export interface PageDefinition extends PageDeclared {
  /** Stable id: the page module's file name (`site/pages/<id>.tsx`); names its code chunk, travels in the hydration
   * state. */
  id: string
}

/**
 * A page as the client router matches it, from the manifest the build writes (src/build/page-manifest.ts): its path
 * and what the data cache needs, never its head or its server half.
 */
export type PageRoute = Pick<PageDefinition, 'id' | 'path' | 'kind' | 'revalidate'>

/** A page's component as run-time code holds it, whatever its data (a method type, for the reason `head` is one). */
export type PageComponent = { draw(props: PageComponentProps<unknown, unknown>): ReactNode }['draw']

/** A page's module (its code chunk) as run-time code holds it: its component and its declaration. */
export interface PageModule {
  default: PageComponent
  page: PageDeclared
}
