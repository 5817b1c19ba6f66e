import { caches } from '../../config/caches.ts'
import { regeneration } from '../../config/content.ts'
import type { PageMatch } from '../common/match.ts'
import type { PageAnswer } from '../common/page-data.ts'
import type { PageRequest, RouteParams } from '../common/page-types.ts'
import type { ContentSource } from '../content/content-source.ts'
import type { Revalidation, RevalidatedPages } from './revalidation.ts'
import { SingleFlight } from '../toolbox/single-flight.ts'
import { withLoaderTimeout } from './version-source.ts'
import {
  keptAnswers,
  pageLoads,
  type KeptResult,
  type PageLoad,
  type PageResult,
  type PartialResult,
} from './page-answers.ts'
import { loadHere, type PageShare } from './page-share.ts'
import { pageKey, type PageVersion } from './page-version.ts'
import { Regenerations, type RegenerationReport, type RegenerationStats } from './regeneration.ts'
import { RetryBackoff } from './retry-backoff.ts'
import type { ServerPage } from './site.ts'
import { VersionSource } from './version-source.ts'
import { keptVersions, namedVersions, type KeptVersions, type RevalidationRequest } from './version-store.ts'

export interface PageVersionsOptions {
  deploymentId: string
  /** What loaders read the site's content from (CONTENT_DIR). */
  content: ContentSource
  /** Reads a path as the server's routes do (src/common/match.ts): data URLs, revalidations and shared versions alike. */
  matchPage: (pathname: string) => PageMatch<ServerPage> | undefined
  /** At most this many `static` page instances kept (config/server.ts)... */
  maxStaticEntries: number
  /** ...and at most this many bytes of them, by their estimate; past either, the least recently used goes. */
  maxStaticBytes?: number
  /** Told of each instance the bounds push out. */
  onEvict?: () => void
  /** A loader run for a `static` instance that has not answered by then fails (config/content.ts). */
  loaderTimeoutMs?: number
  /** After a failed regeneration, the next waits this long (config/content.ts). */
  retryBackoffMs?: number
  /** Told of every regeneration's end. */
  onRegeneration?: (report: RegenerationReport) => void
  /** Regenerations at once (config/content.ts maxAtOnce). */
  maxRegenerationsAtOnce?: number
  /** With REDIS_URL: the versions the fleet shares; without, every loader run is this instance's own. */
  share?: PageShare
  /** The clock (tests move it). */
  now?: () => number
}

/**
 * The pages' answers, owned in one place: the HTML route and the data route ask here, so a page's document and its
 * data come from one loader run and one version; `POST /api/revalidate` and the revalidations other instances publish
 * name versions here. A `static` page instance is loaded once per deployment (concurrent first requests share one
 * run); a not-found answer is not kept, so unknown paths cannot fill the store, and a failed run only its failure, for
 * the back-off (config/content.ts retryBackoffMs). Which version is current is kept in a bounded cache
 * (src/pages/version-store.ts); loading again is the regenerations' (src/pages/regeneration.ts).
 */
export class PageVersions implements RevalidatedPages {
  /** Reads a path as the server's routes do. */
  readonly match: (pathname: string) => PageMatch<ServerPage> | undefined
  readonly #store: KeptVersions
  /** At most this many instances kept: 0 keeps none (loaded per request). */
  readonly #maxKept: number
  readonly #source: VersionSource
  readonly #regenerations: Regenerations
  readonly #loaderTimeoutMs: number
  readonly #content: ContentSource
  /** First loader runs of `static` instances, by key. */
  readonly #firstLoads = new SingleFlight<string, PageVersion>()
  /** First loads that failed, given again until their back-off ends. */
  readonly #firstLoadBackoff: RetryBackoff

  constructor(options: PageVersionsOptions) {
    const now = options.now ?? Date.now
    this.match = options.matchPage
    this.#loaderTimeoutMs = options.loaderTimeoutMs ?? Number.POSITIVE_INFINITY
    // An instance pushed out by the bounds takes its mark and its failure count with it: it loads afresh when asked.
    this.#maxKept = options.maxStaticEntries
    this.#store = keptVersions(
      { maxEntries: options.maxStaticEntries, maxBytes: options.maxStaticBytes ?? Number.POSITIVE_INFINITY },
      (key) => {
        this.#regenerations.forget(key)
        options.onEvict?.()
      },
    )
    const { deploymentId, content, matchPage } = options
    this.#content = content
    this.#firstLoadBackoff = new RetryBackoff(options.retryBackoffMs ?? 0, now, caches.failedLoads)
    this.#source = new VersionSource({ deploymentId, content, matchPage, share: options.share ?? loadHere, now })
    this.#regenerations = new Regenerations({
      store: this.#store,
      source: this.#source,
      backoff: new RetryBackoff(options.retryBackoffMs ?? 0, now, caches.failedLoads),
      loaderTimeoutMs: this.#loaderTimeoutMs,
      onRegeneration: options.onRegeneration ?? (() => undefined),
      maxAtOnce: options.maxRegenerationsAtOnce ?? regeneration.maxAtOnce,
      now,
    })
  }

  /**
   * What a request for a page gets (src/pages/page-answers.ts): the one call a route makes. A kept version is given
   * at once (nothing awaited); a loader run a request waits for (a `dynamic` page's, a first load) is published on
   * `pageLoads` for observers, with `origin` (the route's span parent), and a kept answer on `keptAnswers`. `request`:
   * what a `dynamic` loader (a partly prerendered page's request-time one) may read of the request; a kept one never.
   */
  answer(
    match: PageMatch<ServerPage>,
    query: Readonly<Record<string, unknown>>,
    origin?: object,
    request?: PageRequest,
  ): PageResult | Promise<PageResult> {
    const { page, params } = match
    const identity = (answer: PageAnswer) => answer
    if (page.partial) {
      const { kept, livePage } = page.partial
      const loadLive = () =>
        this.#observed(livePage, origin, () => this.load(livePage, params, query, request), identity)
      const toPartial = ({ version, kept }: KeptResult): PartialResult => ({ kind: 'partial', version, kept, loadLive })
      const keptHalf = this.#kept({ page: kept, params }, origin)
      return keptHalf instanceof Promise ? keptHalf.then(toPartial) : toPartial(keptHalf)
    }
    if (page.kind === 'dynamic') {
      const computed = (answer: PageAnswer): PageResult => ({ kind: 'computed', answer })
      return this.#observed(page, origin, () => this.load(page, params, query, request), identity).then(computed)
    }
    return this.#kept(match, origin)
  }

  /** A `static` page instance's version as a `kept` result: at once when kept, else once its load has ended. */
  #kept(match: PageMatch<ServerPage>, origin: object | undefined): KeptResult | Promise<KeptResult> {
    const toResult = (version: PageVersion): KeptResult => ({
      kind: 'kept',
      version,
      kept: this.isKept(version),
      freshness: match.page.revalidate === undefined ? undefined : this.isStale(version) ? 'STALE' : 'HIT',
    })
    const kept = this.keptVersion(match)
    if (!kept)
      return this.#observed(
        match.page,
        origin,
        () => this.staticVersion(match),
        (v) => v.answer,
      ).then(toResult)
    if (keptAnswers.hasSubscribers) {
      keptAnswers.publish({ owner: this, origin, page: match.page, answer: kept.answer } satisfies PageLoad)
    }
    return toResult(kept)
  }

  /** `run`, published on `pageLoads` when someone listens (`answerOf` tells them its answer). */
  #observed<T>(
    page: ServerPage,
    origin: object | undefined,
    run: () => Promise<T>,
    answerOf: (result: T) => PageAnswer,
  ): Promise<T> {
    if (!pageLoads.hasSubscribers) return run()
    const context: PageLoad = { owner: this, origin, page }
    return pageLoads.tracePromise(async () => {
      const result = await run()
      context.answer = answerOf(result)
      return result
    }, context)
  }

  /** The answer of a `dynamic` page for this request. */
  load(
    page: ServerPage,
    params: RouteParams,
    query: Readonly<Record<string, unknown>>,
    request?: PageRequest,
  ): Promise<PageAnswer> {
    return this.#source.load(page, params, query, request)
  }

  /**
   * The current version of a `static` page instance when it may be served now: no loader runs and nothing is awaited.
   * Past its `revalidate` time it is still given (stale: `isStale`), and one regeneration starts. Undefined before
   * its first loader run has ended, or once a revalidation named it (then `staticVersion`).
   */
  keptVersion(match: PageMatch<ServerPage>): PageVersion | undefined {
    if (this.#store.size === 0) return undefined
    const current = this.#store.get(pageKey(match))
    return current && this.#regenerations.servable(current)
  }

  /** Whether a version is past its page's `revalidate` time: served while its regeneration runs. */
  isStale(version: PageVersion): boolean {
    return this.#regenerations.isStale(version)
  }

  /** Whether `version` is kept (its document too); one past the bound, or replaced, is not: its document streams. */
  isKept(version: PageVersion): boolean {
    // Read without making it the most recently used: asking whether a version is kept is not using it.
    return this.#store.peek(version.key)?.version === version
  }

  /** The version of a `static` page instance, loaded on first use, regenerated first when a revalidation named it. */
  staticVersion(match: PageMatch<ServerPage>): Promise<PageVersion> {
    const key = pageKey(match)
    const current = this.#store.get(key)
    if (current) {
      const named = this.#regenerations.awaitNamed(current)
      return named ? named.then((version) => version ?? this.staticVersion(match)) : Promise.resolve(current.version)
    }
    const pending = this.#firstLoads.get(key)
    if (pending) return pending
    // A failed first run is kept for its back-off: the requests meanwhile get its failure at once, nothing is read.
    const failure = this.#firstLoadBackoff.failure(key)
    if (failure !== undefined) return Promise.reject(failure)
    const first = () =>
      withLoaderTimeout(this.#first(match), this.#loaderTimeoutMs).catch((error: unknown) => {
        this.#firstLoadBackoff.failed(key, error)
        throw error
      })
    // A store that keeps nothing (staticPageCacheEntries 0): loaded per request.
    if (this.#maxKept <= 0) return first()
    return this.#firstLoads.run(key, () =>
      first().then((version) => {
        if (!('notFound' in version.answer)) this.#store.set(version.key, { version, match })
        return version
      }),
    )
  }

  async #first(match: PageMatch<ServerPage>): Promise<PageVersion> {
    const fits = (version: { generatedAt: number }) => !this.#source.isPast(match.page, version.generatedAt)
    return (await this.#source.make(match, fits)).version
  }

  /**
   * Marks the kept instances a revalidation names (its paths, any spelling; its tags; or every one): each regenerates
   * when next asked for, and the requests for it wait for that one regeneration. Nothing is loaded here, so this
   * returns at once, however many pages it names: their paths.
   */
  revalidate(request: Revalidation | RevalidationRequest): string[] {
    // A revalidation is a new reason to try now: a first load that failed before is tried again too, and the content's
    // index is checked again before the pages named read it.
    this.#firstLoadBackoff.clearAll()
    this.#content.recheckIndex()
    return this.#regenerations.name(namedVersions(this.#store, request, this.match))
  }

  /** What the regenerations are doing: marked, running, queued, failing (`/api/health`). */
  get regenerationStats(): RegenerationStats {
    return this.#regenerations.stats
  }
}
