import type { PageMatch } from '../common/match.ts'
import type { PageAnswer } from '../common/page-data.ts'
import type { LoaderContext as PageLoaderContext, PageRequest, RouteParams } from '../common/page-types.ts'
import { errors } from '../errors.ts'
import type { ContentSource } from '../content/content-source.ts'
import { withTimeOut } from '../toolbox/time-out.ts'
import type { RevalidationMessage } from './revalidation.ts'
import type { PageShare } from './page-share.ts'
import { pageKey, pageVersion, staleAtOf, type LoadedVersion, type PageVersion } from './page-version.ts'
import type { ServerPage } from './site.ts'

/** What every loader is given besides its request's parameters and query. */
export interface LoaderContext {
  deploymentId: string
  /** What loaders read the site's content from (CONTENT_DIR). */
  content: ContentSource
}

/** A loader that did not answer within its time (config/content.ts loaderTimeoutMs). */
export class LoaderTimeoutError extends Error {
  override name = 'LoaderTimeoutError'
  constructor(timeoutMs: number) {
    super(`the loader did not answer in ${timeoutMs} ms`)
  }
}

/**
 * `work`, failed with a LoaderTimeoutError when it has not settled within `timeoutMs` (infinite: never). A first load
 * is bounded like a regeneration: a loader that never answers fails its requests (500, with a digest) and the next
 * request tries again, instead of holding every request of the page until a restart.
 */
export function withLoaderTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  return withTimeOut(work, timeoutMs, () => new LoaderTimeoutError(timeoutMs))
}

/**
 * What a loader is told. With a request (a `dynamic` page's loader, a partly prerendered page's request-time one), its
 * `request`; without (a kept page's loader, whose answer every visitor gets), reading `request` throws, so a loader
 * written against the request that ends up kept fails loudly instead of keeping one visitor's data for all.
 */
function loaderContextOf(
  page: ServerPage,
  base: PageLoaderContext,
  request: PageRequest | undefined,
): PageLoaderContext & { request: PageRequest } {
  if (request) return { ...base, request }
  return Object.defineProperty(base, 'request', {
    get() {
      throw new errors.PageRequestInKeptLoader(page.id)
    },
  }) as PageLoaderContext & { request: PageRequest }
}

/** Runs a page's loader: its answer (without tags, which stay on the server) and the tags its props carry. */
export async function runLoader(
  page: ServerPage,
  params: RouteParams,
  query: Readonly<Record<string, unknown>>,
  context: LoaderContext,
  request?: PageRequest,
): Promise<{ answer: PageAnswer; tags: readonly string[] }> {
  if (!page.load) return { answer: { props: {} }, tags: [] }
  const base = { params, query, deploymentId: context.deploymentId, content: context.content }
  const result = await page.load(loaderContextOf(page, base, request))
  if (!('props' in result)) return { answer: result, tags: [] }
  return { answer: { props: result.props }, tags: result.tags ?? [] }
}

export interface VersionSourceOptions extends LoaderContext {
  /** Where versions are produced: once for the fleet with REDIS_URL, here otherwise (src/pages/page-share.ts). */
  share: PageShare
  /** Reads a path as the server's routes do: a revalidation of any spelling of its path names a shared version. */
  matchPage: (pathname: string) => PageMatch<ServerPage> | undefined
  now: () => number
}

/**
 * Where page answers come from: a `dynamic` page's loader per request, a `static` instance's version from the loader
 * or, with REDIS_URL, from the version the fleet shares (one loader run fleet-wide). A `static` loader sees no query
 * (no query can change what is kept).
 */
export class VersionSource {
  readonly #context: LoaderContext
  readonly #share: PageShare
  readonly #matchPage: (pathname: string) => PageMatch<ServerPage> | undefined
  readonly #now: () => number

  constructor(options: VersionSourceOptions) {
    this.#context = { deploymentId: options.deploymentId, content: options.content }
    this.#share = options.share
    this.#matchPage = options.matchPage
    this.#now = options.now
  }

  /** The answer of a `dynamic` page for this request (`request`: what its loader may read of it). */
  async load(
    page: ServerPage,
    params: RouteParams,
    query: Readonly<Record<string, unknown>>,
    request?: PageRequest,
  ): Promise<PageAnswer> {
    return (await runLoader(page, params, query, this.#context, request)).answer
  }

  /** Whether a version loaded at `generatedAt` is past its page's `revalidate` time. */
  isPast(page: ServerPage, generatedAt: number): boolean {
    const staleAt = staleAtOf(page, generatedAt)
    return staleAt !== undefined && this.#now() >= staleAt
  }

  /**
   * A version of `match`: the fleet's when `fits` takes it (and no revalidation named it since its loader started),
   * else one its loader makes; and whether the loader ran here.
   */
  async make(
    match: PageMatch<ServerPage>,
    fits: (version: LoadedVersion) => boolean,
  ): Promise<{ version: PageVersion; loaderRan: boolean }> {
    const key = pageKey(match)
    const load = async (): Promise<LoadedVersion> => {
      const { answer, tags } = await runLoader(match.page, match.params, {}, this.#context)
      return { answer, tags, generatedAt: this.#now() }
    }
    const isNamed = (message: RevalidationMessage, tags: readonly string[]) => this.#names(message, key, tags)
    const { version, loaderRan } = await this.#share.produce(key, { fits, isNamed }, load)
    return { version: pageVersion(match, version), loaderRan }
  }

  /** Whether a revalidation names the page instance `key` (any spelling of its path) or one of its version's tags. */
  #names(message: RevalidationMessage, key: string, tags: readonly string[]): boolean {
    if (message.tags.some((tag) => tags.includes(tag))) return true
    return message.paths.some((path) => {
      const match = this.#matchPage(path)
      return match !== undefined && pageKey(match) === key
    })
  }
}
