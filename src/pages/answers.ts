import type { PageMatch } from '../../site/match.ts'
import { encodePageAnswer, type EncodedPageAnswer, type PageAnswer } from '../../site/page-data.ts'
import type { RouteParams } from '../../site/page-types.ts'
import { KeptDocumentSlot } from '../render/document-cache.ts'
import { strongEtag } from '../etag.ts'
import type { ContentCoding } from '../compression/negotiate.ts'
import type { ContentSource } from '../content/content-source.ts'
import type { PageVersion, PageWanted, ProducedVersion } from '../shared-state/shared-pages.ts'
import type { RevalidationMessage } from '../shared-state/revalidation-log.ts'
import type { ServerPage } from './site.ts'
import { SingleFlight } from '../single-flight.ts'

/** A `static` page instance, kept for the deployment: its answer, its page data as sent, its document once rendered. */
export interface StaticPageEntry {
  answer: PageAnswer
  data: EncodedPageAnswer & { etag: string }
  /** The page data compressed, once per coding, on first use (plugins/page-data.ts). */
  encodedData: Map<ContentCoding, Buffer>
  /** The document rendered once (src/render/renderer.ts), filled on the first HTML request; none when the entry is
   * not kept (the cache is full): its requests stream. */
  document: KeptDocumentSlot | undefined
  /** The tags its loader gave (`guides`, `guide:<slug>`): `POST /api/revalidate` names them. */
  tags: readonly string[]
  /** When its loader ran (ms since the epoch). */
  generatedAt: number
  /** From when it is stale (its page's `revalidate`); undefined: kept until revalidated on demand. */
  staleAt: number | undefined
}

/** Why a kept page is loaded again: its time ran out, or a revalidation named its path or one of its tags. */
export type RegenerationReason = 'time' | 'path' | 'tag'

/** One regeneration's end, for the log line, the span and the counters (plugins/pages.ts). */
export interface RegenerationReport {
  page: ServerPage
  /** The page instance's path, e.g. `/guides/page-data`. */
  path: string
  reason: RegenerationReason
  durationMs: number
  /** `regenerated`: a new version is kept; `removed`: the loader said not found (the page is gone); `failed`: the
   * kept version stays. */
  outcome: 'regenerated' | 'removed' | 'failed'
  /** Whether this instance ran the loader (else it took the version another instance made: docs/content.md). */
  loaderRan: boolean
  error?: unknown
}

/** Where the fleet shares page versions (src/shared-state/shared-pages.ts): one loader run per page instance. */
export interface PageShare {
  produce(key: string, wanted: PageWanted, load: () => Promise<PageVersion>): Promise<ProducedVersion>
}

export interface PageAnswersOptions {
  deploymentId: string
  /** What loaders read the site's content from (CONTENT_DIR). */
  content: ContentSource
  /** At most this many `static` page instances kept (config/server.ts). */
  maxStaticEntries: number
  /** A regeneration's loader that has not answered by then fails (config/content.ts). */
  loaderTimeoutMs?: number
  /** After a failed regeneration, the next waits this long (config/content.ts). */
  retryBackoffMs?: number
  /** Told of every regeneration's end. */
  onRegeneration?: (report: RegenerationReport) => void
  /** With REDIS_URL: the versions the fleet shares; without, every loader run is this instance's own. */
  share?: PageShare
  /** Reads a path as the server's routes do: a shared version is named by a revalidation of any spelling of its path. */
  matchPage?: (pathname: string) => PageMatch<ServerPage> | undefined
  /** The clock (tests move it). */
  now?: () => number
}

/** One key per page instance, whatever spelling of its path was asked (`/guides/x/`, `/guides//x`). */
export function entryKey(match: PageMatch<ServerPage>): string {
  return `${match.page.id}:${JSON.stringify(match.params)}`
}

/** The path of a page instance: its pattern with its parameters. */
export function instancePath(match: PageMatch<ServerPage>): string {
  return match.page.path.replace(/:(\w+)/g, (_whole, name: string) => encodeURIComponent(match.params[name] ?? ''))
}

/** From when a version loaded at `generatedAt` is stale: its page's `revalidate` later; undefined without one. */
function staleAtOf(page: ServerPage, generatedAt: number): number | undefined {
  return page.revalidate === undefined ? undefined : generatedAt + page.revalidate * 1000
}

class LoaderTimeoutError extends Error {
  override name = 'LoaderTimeoutError'
}

/**
 * Runs page loaders, at most once per request, and once per deployment for a `static` page instance: the HTML route
 * and the data route ask here, so a page's document and its data come from one loader run and one cache. A `static`
 * loader sees no query (no query can change what is kept). Concurrent first requests of a `static` instance share
 * one run; a failed run or a not-found answer is not kept (the next request runs the loader again, and unknown paths
 * cannot fill the cache).
 *
 * A kept instance is loaded again (regenerated) when its page's `revalidate` time has passed (the kept version is
 * served meanwhile, and one regeneration runs in the background) or when `revalidate()` names its path or a tag of
 * its answer (requests then wait for the one regeneration). A regeneration that fails or times out keeps the last
 * good version, and the next waits `retryBackoffMs`.
 */
export class PageAnswers {
  readonly #deploymentId: string
  readonly #content: ContentSource
  readonly #maxStaticEntries: number
  readonly #loaderTimeoutMs: number
  readonly #retryBackoffMs: number
  readonly #onRegeneration: (report: RegenerationReport) => void
  readonly #now: () => number
  readonly #share: PageShare | undefined
  readonly #matchPage: ((pathname: string) => PageMatch<ServerPage> | undefined) | undefined
  readonly #staticEntries = new Map<string, Promise<StaticPageEntry>>()
  /** The entries of #staticEntries whose loader run has ended with a page kept: no request waits for them. */
  readonly #keptEntries = new Map<string, { entry: StaticPageEntry; match: PageMatch<ServerPage> }>()
  /** Regenerations running, by key: one per page instance. */
  readonly #regenerations = new SingleFlight<string, StaticPageEntry | undefined>()
  /** Kept instances a revalidation named, not regenerated yet: requests wait for their regeneration. Each with the
   * count of revalidations when it was named: a regeneration that started before it does not clear it. */
  readonly #invalidated = new Map<string, { reason: RegenerationReason; mark: number }>()
  #revalidations = 0
  /** After a failed regeneration, none before this time (ms). */
  readonly #retryAt = new Map<string, number>()

  constructor(options: PageAnswersOptions) {
    this.#deploymentId = options.deploymentId
    this.#content = options.content
    this.#maxStaticEntries = options.maxStaticEntries
    this.#loaderTimeoutMs = options.loaderTimeoutMs ?? Number.POSITIVE_INFINITY
    this.#retryBackoffMs = options.retryBackoffMs ?? 0
    this.#onRegeneration = options.onRegeneration ?? (() => undefined)
    this.#now = options.now ?? Date.now
    this.#share = options.share
    this.#matchPage = options.matchPage
  }

  /** The answer of a `dynamic` page for this request. */
  async load(page: ServerPage, params: RouteParams, query: Readonly<Record<string, unknown>>): Promise<PageAnswer> {
    return (await this.#run(page, params, query)).answer
  }

  /** Runs a page's loader: its answer (without tags, which stay on the server) and the tags its props carry. */
  async #run(
    page: ServerPage,
    params: RouteParams,
    query: Readonly<Record<string, unknown>>,
  ): Promise<{ answer: PageAnswer; tags: readonly string[] }> {
    if (!page.load) return { answer: { props: {} }, tags: [] }
    const result = await page.load({ params, query, deploymentId: this.#deploymentId, content: this.#content })
    if (!('props' in result)) return { answer: result, tags: [] }
    return { answer: { props: result.props }, tags: result.tags ?? [] }
  }

  /**
   * The entry of a `static` page instance when it is kept and may be served now: no loader runs and nothing is
   * awaited. Past its `revalidate` time it is still given (stale: `isStale`), and one regeneration starts. Undefined
   * before its first loader run has ended, or once a revalidation named it (then `staticEntry`).
   */
  keptEntry(match: PageMatch<ServerPage>): StaticPageEntry | undefined {
    if (this.#keptEntries.size === 0) return undefined
    const key = entryKey(match)
    const kept = this.#keptEntries.get(key)
    if (!kept) return undefined
    if (this.#invalidated.size > 0 && this.#invalidated.has(key) && this.#mayRegenerate(key)) return undefined
    if (this.isStale(kept.entry) && this.#mayRegenerate(key)) {
      void this.#regenerate(key, kept.match, 'time')
    }
    return kept.entry
  }

  /** Whether a kept entry is past its page's `revalidate` time: served while its regeneration runs. */
  isStale(entry: StaticPageEntry): boolean {
    return entry.staleAt !== undefined && this.#now() >= entry.staleAt
  }

  /** The kept entry of a `static` page instance, made on first use, regenerated first when a revalidation named it. */
  staticEntry(match: PageMatch<ServerPage>): Promise<StaticPageEntry> {
    const key = entryKey(match)
    const kept = this.#keptEntries.get(key)
    const invalidated = this.#invalidated.get(key)
    if (kept && invalidated && this.#mayRegenerate(key)) {
      return this.#regenerate(key, kept.match, invalidated.reason).then((entry) => entry ?? this.staticEntry(match))
    }
    const pending = this.#staticEntries.get(key)
    if (pending) return pending
    const keep = this.#staticEntries.size < this.#maxStaticEntries
    // A first load is bounded like a regeneration: a loader that never answers fails its requests (500, with a
    // digest), and the next request tries again, instead of holding every request of the page until a restart.
    const loading = this.#withTimeout(this.#makeEntry(key, match, keep, { fits: (version) => !this.#isPast(match.page, version) }))
    if (!keep) return loading
    this.#staticEntries.set(key, loading)
    loading.then(
      (entry) => {
        if ('notFound' in entry.answer) this.#staticEntries.delete(key)
        else this.#keptEntries.set(key, { entry, match })
      },
      // The request that ran the loader reports the failure; the next request runs it again.
      () => this.#staticEntries.delete(key),
    )
    return loading
  }

  /**
   * Marks the kept instances at `paths` and those whose answer carries one of `tags` for regeneration, and starts
   * each one's; returns the paths of the instances named. `matchPage` reads a path as the server's routes do.
   */
  revalidate(
    request: { paths: readonly string[]; tags: readonly string[] } | 'everything',
    matchPage: (pathname: string) => PageMatch<ServerPage> | undefined,
  ): string[] {
    const mark = ++this.#revalidations
    const paths: string[] = []
    for (const [key, { reason, kept }] of this.#named(request, matchPage)) {
      this.#invalidated.set(key, { reason, mark })
      // A revalidation is a new reason to try now, whatever failed before.
      this.#retryAt.delete(key)
      void this.#regenerate(key, kept.match, reason)
      paths.push(instancePath(kept.match))
    }
    return paths
  }

  /**
   * Regenerates the kept instances a revalidation names while requests keep getting their kept version, and resolves
   * once each has its new version (or has failed and kept the last good one): the instance that takes
   * `POST /api/revalidate` answers after this, as Next's `res.revalidate()` does, so the loader's time is the call's,
   * not its visitors'. Returns the paths of the instances named.
   */
  async regenerateNow(
    request: { paths: readonly string[]; tags: readonly string[] },
    matchPage: (pathname: string) => PageMatch<ServerPage> | undefined,
  ): Promise<string[]> {
    const named = [...this.#named(request, matchPage)]
    await Promise.all(
      named.map(async ([key, { reason, kept }]) => {
        // One that started before this call may have read the content before the change: this one starts after it.
        await this.#regenerations.get(key)
        this.#retryAt.delete(key)
        await this.#regenerate(key, kept.match, reason)
      }),
    )
    return named.map(([, { kept }]) => instancePath(kept.match))
  }

  /** The kept instances a revalidation names: at one of its paths, or carrying one of its tags. */
  #named(
    request: { paths: readonly string[]; tags: readonly string[] } | 'everything',
    matchPage: (pathname: string) => PageMatch<ServerPage> | undefined,
  ): Map<string, { reason: RegenerationReason; kept: { entry: StaticPageEntry; match: PageMatch<ServerPage> } }> {
    const named = new Map<string, { reason: RegenerationReason; kept: { entry: StaticPageEntry; match: PageMatch<ServerPage> } }>()
    if (request === 'everything') {
      for (const [key, kept] of this.#keptEntries) named.set(key, { reason: 'path', kept })
      return named
    }
    for (const path of request.paths) {
      const match = matchPage(path)
      const key = match && entryKey(match)
      const kept = key === undefined ? undefined : this.#keptEntries.get(key)
      if (key !== undefined && kept) named.set(key, { reason: 'path', kept })
    }
    if (request.tags.length > 0) {
      for (const [key, kept] of this.#keptEntries) {
        if (!named.has(key) && kept.entry.tags.some((tag) => request.tags.includes(tag))) named.set(key, { reason: 'tag', kept })
      }
    }
    return named
  }

  #mayRegenerate(key: string): boolean {
    const retryAt = this.#retryAt.get(key)
    return retryAt === undefined || this.#now() >= retryAt
  }

  /** Loads a kept instance again, once at a time: the new entry (not kept when the page is gone), or the kept one. */
  #regenerate(key: string, match: PageMatch<ServerPage>, reason: RegenerationReason): Promise<StaticPageEntry | undefined> {
    const running = this.#regenerations.get(key)
    if (running) return running
    const startMark = this.#revalidations
    const regeneration = this.#regenerations.run(key, () => this.#regenerateOnce(key, match, reason, startMark))
    void regeneration.finally(() => {
      // Named again while this one ran (it may have read the content before the change): once more.
      const again = this.#invalidated.get(key)
      const kept = this.#keptEntries.get(key)
      if (again && again.mark > startMark && kept && this.#mayRegenerate(key)) void this.#regenerate(key, kept.match, again.reason)
    })
    return regeneration
  }

  #regenerateOnce(key: string, match: PageMatch<ServerPage>, reason: RegenerationReason, startMark: number): Promise<StaticPageEntry | undefined> {
    const startedAt = performance.now()
    const keptBefore = this.#keptEntries.get(key)?.entry
    let loaderRan = true
    const report = (outcome: RegenerationReport['outcome'], error?: unknown) =>
      this.#onRegeneration({ page: match.page, path: instancePath(match), reason, durationMs: performance.now() - startedAt, outcome, loaderRan, error })
    // Past its time, a version fits when it is newer than the kept one and not past its own; when a revalidation
    // named the page, any version no revalidation has named since its loader started (the share checks that).
    const fits = (version: PageVersion) =>
      !this.#isPast(match.page, version) && (reason !== 'time' || keptBefore === undefined || version.generatedAt > keptBefore.generatedAt)
    const made = this.#makeEntry(key, match, true, { fits }, (ran) => (loaderRan = ran))
    const regeneration = this.#withTimeout(made).then(
      (entry) => {
        if ((this.#invalidated.get(key)?.mark ?? 0) <= startMark) this.#invalidated.delete(key)
        this.#retryAt.delete(key)
        if ('notFound' in entry.answer) {
          this.#keptEntries.delete(key)
          this.#staticEntries.delete(key)
          report('removed')
          return entry
        }
        this.#keptEntries.set(key, { entry, match })
        this.#staticEntries.set(key, Promise.resolve(entry))
        report('regenerated')
        return entry
      },
      (error: unknown) => {
        this.#retryAt.set(key, this.#now() + this.#retryBackoffMs)
        report('failed', error)
        return this.#keptEntries.get(key)?.entry
      },
    )
    return regeneration
  }

  /** Whether a version is past its page's `revalidate` time. */
  #isPast(page: ServerPage, version: PageVersion): boolean {
    const staleAt = staleAtOf(page, version.generatedAt)
    return staleAt !== undefined && this.#now() >= staleAt
  }

  #withTimeout<T>(work: Promise<T>): Promise<T> {
    if (!Number.isFinite(this.#loaderTimeoutMs)) return work
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new LoaderTimeoutError(`the loader did not answer in ${this.#loaderTimeoutMs} ms`)), this.#loaderTimeoutMs)
    })
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer))
  }

  /** An entry from the loader, or with REDIS_URL from the version the fleet shares (one loader run fleet-wide). */
  async #makeEntry(
    key: string,
    match: PageMatch<ServerPage>,
    keep: boolean,
    wanted: Pick<PageWanted, 'fits'>,
    onLoaderRan?: (ran: boolean) => void,
  ): Promise<StaticPageEntry> {
    const load = async (): Promise<PageVersion> => {
      const { answer, tags } = await this.#run(match.page, match.params, {})
      return { answer, tags, generatedAt: this.#now() }
    }
    let version: PageVersion
    if (this.#share) {
      const produced = await this.#share.produce(key, { fits: wanted.fits, isNamed: (message, tags) => this.#names(message, key, tags) }, load)
      version = produced.version
      onLoaderRan?.(produced.loaderRan)
    } else {
      version = await load()
    }
    const { answer, tags, generatedAt } = version
    const data = encodePageAnswer(answer, match.page.kind)
    return {
      answer,
      data: { ...data, etag: strongEtag(data.body) },
      encodedData: new Map(),
      document: keep ? new KeptDocumentSlot() : undefined,
      tags,
      generatedAt,
      staleAt: staleAtOf(match.page, generatedAt),
    }
  }

  /** Whether a revalidation names the page instance `key` (any spelling of its path) or one of its version's tags. */
  #names(message: RevalidationMessage, key: string, tags: readonly string[]): boolean {
    if (message.tags.some((tag) => tags.includes(tag))) return true
    return message.paths.some((path) => {
      const match = this.#matchPage?.(path)
      return match !== undefined && entryKey(match) === key
    })
  }
}
