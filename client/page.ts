/**
 * What a page module imports from Courier (docs/your-site.md): `definePage` for its declaration, `defineLoader` for
 * its server half's loaders, and the types of both. `definePage<typeof server>` takes the data type from the server
 * half (`import type * as server from './<id>.server.ts'`, erased from the bundle), so the head and the component read
 * the shape the loader gives; the server half itself never reaches the browser.
 */
import type {
  Action,
  ActionRateLimit,
  ActionAnswer,
  ActionContext,
  DataOf,
  Loader,
  PageDeclaration,
  PageServerModule,
  PerUserOf,
  RequestLoader,
  RequestLoaderContext,
} from '../src/common/page-types.ts'
import type { LoaderAnswer } from '../src/common/page-types.ts'

export type {
  ActionAnswer,
  ActionRateLimit,
  ActionContext,
  DataOf,
  FormFields,
  LastModified,
  LiveData,
  Loader,
  LoaderContext,
  NoData,
  PageComponentProps,
  PageHead,
  PageKind,
  PageProps,
  PageRequest,
  PartialData,
  RequestLoaderContext,
  RouteParams,
  StaticParams,
} from '../src/common/page-types.ts'

/** A page's declaration, checked against the data its server half's loader gives (none without one). */
export function definePage<Server extends PageServerModule = Record<never, never>>(
  page: PageDeclaration<DataOf<Server>> & PerUserOf<Server>,
): PageDeclaration<DataOf<Server>> {
  return page
}

/** A loader, its data type taken from what it returns (a redirect or not-found answer keeps its literal type). */
export function defineLoader<Data>(load: Loader<Data>): Loader<Data> {
  return load
}

/**
 * A page's action, run by a `POST` to the page's own path (a `<Form>` of the page sends it, with or without
 * JavaScript): it reads the form and the request, and answers a redirect (303) or the submission refused (`invalid`,
 * shown with the page as its `actionData`, status 422). `rateLimit`: how many submissions one client may make in a
 * window (a sign-in's guesses), counted across the fleet with REDIS_URL. docs/forms.md.
 */
export function defineAction<Invalid>(
  action: (context: ActionContext) => ActionAnswer<Invalid> | Promise<ActionAnswer<Invalid>>,
  options: { rateLimit?: ActionRateLimit } = {},
): Action<Invalid> {
  return Object.assign(action, { perRequest: true as const }, options.rateLimit ? { rateLimit: options.rateLimit } : {})
}

/**
 * A loader that reads the request (`request`: its headers, cookies, session): the page is per-user, so it must be
 * `dynamic` (the compiler says so at `definePage`, the server's start and the build too), and nothing it gives is ever
 * kept, shared or cached publicly.
 */
export function defineRequestLoader<Data>(
  load: (context: RequestLoaderContext) => LoaderAnswer<Data> | Promise<LoaderAnswer<Data>>,
): RequestLoader<Data> {
  return Object.assign(load, { perRequest: true as const })
}
