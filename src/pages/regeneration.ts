import type { PageMatch } from '../common/match.ts'
import { SingleFlight } from '../toolbox/single-flight.ts'
import { Semaphore } from '../toolbox/semaphore.ts'
import { withLoaderTimeout } from './version-source.ts'
import { instancePath, type LoadedVersion, type PageVersion } from './page-version.ts'
import type { RetryBackoff } from './retry-backoff.ts'
import type { ServerPage } from './site.ts'
import type { CurrentVersion, KeptVersions, RegenerationReason } from './version-store.ts'
import type { VersionSource } from './version-source.ts'

/** One regeneration's end, for the log line, the span and the counters (plugins/pages.ts). */
export interface RegenerationReport {
  page: ServerPage
  /** The page instance's path, e.g. `/guides/page-data`. */
  path: string
  reason: RegenerationReason
  durationMs: number
  /** `regenerated`: a new version is current; `removed`: the loader said not found (the page is gone); `failed`: the
   * current version stays. */
  outcome: 'regenerated' | 'removed' | 'failed'
  /** Whether this instance ran the loader (else it took the version another instance made: docs/content.md). */
  loaderRan: boolean
  error?: unknown
  /** A failure of an instance whose last regeneration failed too: logged once per page, at error level the first time. */
  repeated?: boolean
}

export interface RegenerationsOptions {
  store: KeptVersions
  source: VersionSource
  backoff: RetryBackoff
  /** A regeneration's loader that has not answered by then fails (config/content.ts). */
  loaderTimeoutMs: number
  /** Told of every regeneration's end. */
  onRegeneration: (report: RegenerationReport) => void
  /** Regenerations at once (config/content.ts maxAtOnce); more wait their turn. */
  maxAtOnce?: number
  now: () => number
}

/** What the regenerations are doing, for `/api/health` and the revalidate answer. */
export interface RegenerationStats {
  /** Page instances a revalidation marked that no request has asked for since: each regenerates when next asked. */
  marked: number
  running: number
  /** Waiting for a place (config/content.ts maxAtOnce). */
  queued: number
  /** Instances whose last regeneration failed (their last good version is served), and failures since start. */
  failing: number
  failedTotal: number
}

/** `RegenerationStats` as a response schema: `/api/health` and the revalidate answer carry them. */
export const regenerationStatsSchema = {
  type: 'object',
  properties: {
    marked: { type: 'integer' },
    running: { type: 'integer' },
    queued: { type: 'integer' },
    failing: { type: 'integer' },
    failedTotal: { type: 'integer' },
  },
} as const

/**
 * Loads current versions again: stale-while-revalidate when a page's `revalidate` time has passed (the current
 * version is served meanwhile, one regeneration runs in the background), and on demand once a revalidation has marked
 * an instance: a revalidation only marks, and the instance regenerates when next asked for (that request and any
 * beside it wait for its one regeneration), so naming 10,000 pages costs nothing until they are read, and no request
 * after the revalidation gets the version before it. One regeneration per instance at a time and `maxAtOnce` in all;
 * one that fails or times out keeps the current version, is counted, and the next waits for the back-off.
 */
export class Regenerations {
  readonly #store: KeptVersions
  readonly #source: VersionSource
  readonly #backoff: RetryBackoff
  readonly #loaderTimeoutMs: number
  readonly #onRegeneration: (report: RegenerationReport) => void
  readonly #now: () => number
  readonly #running = new SingleFlight<string, PageVersion | undefined>()
  /** The revalidation count when each running regeneration started: one that began before a mark does not answer it. */
  readonly #startMarks = new Map<string, number>()
  readonly #slots: Semaphore
  /** Instances whose last regeneration failed. */
  readonly #failing = new Set<string>()
  #failedTotal = 0
  /** Instances a revalidation named, not regenerated yet: requests wait for their regeneration. Each with the count
   * of revalidations when it was named: a regeneration that started before it does not clear it. */
  readonly #named = new Map<string, { reason: RegenerationReason; mark: number }>()
  #revalidations = 0

  constructor(options: RegenerationsOptions) {
    this.#store = options.store
    this.#source = options.source
    this.#backoff = options.backoff
    this.#loaderTimeoutMs = options.loaderTimeoutMs
    this.#onRegeneration = options.onRegeneration
    this.#now = options.now
    this.#slots = new Semaphore({ max: options.maxAtOnce ?? Number.POSITIVE_INFINITY })
  }

  get stats(): RegenerationStats {
    return {
      marked: this.#named.size,
      running: this.#slots.running,
      queued: this.#slots.queued,
      failing: this.#failing.size,
      failedTotal: this.#failedTotal,
    }
  }

  /** Whether a version is past its page's `revalidate` time: served while its regeneration runs. */
  isStale(version: PageVersion): boolean {
    return version.staleAt !== undefined && this.#now() >= version.staleAt
  }

  /**
   * The current version when it may be served now, starting one regeneration when it is stale. Undefined once a
   * revalidation named it (outside the back-off): then `awaitNamed`.
   */
  servable(current: CurrentVersion): PageVersion | undefined {
    const { key } = current.version
    if (this.#named.size > 0 && this.#named.has(key) && this.#backoff.mayTry(key)) return undefined
    if (this.isStale(current.version) && this.#backoff.mayTry(key)) void this.#regenerate(key, current.match, 'time')
    return current.version
  }

  /**
   * The regeneration a request must wait for (a revalidation marked the instance); undefined when none. One that
   * started before the mark may have read the content before the change: the request waits for it, then for another.
   */
  awaitNamed(current: CurrentVersion): Promise<PageVersion | undefined> | undefined {
    const { key } = current.version
    const named = this.#named.get(key)
    if (!named || !this.#backoff.mayTry(key)) return undefined
    const running = this.#running.get(key)
    if (running && (this.#startMarks.get(key) ?? 0) < named.mark) {
      return running.then(() => this.#regenerate(key, current.match, named.reason))
    }
    return this.#regenerate(key, current.match, named.reason)
  }

  /**
   * Marks the instances a revalidation named, at once and without loading anything: each regenerates when next asked
   * for. Their paths.
   */
  name(named: Map<string, { reason: RegenerationReason; current: CurrentVersion }>): string[] {
    const mark = ++this.#revalidations
    const paths: string[] = []
    for (const [key, { reason, current }] of named) {
      this.#named.set(key, { reason, mark })
      // A revalidation is a new reason to try now, whatever failed before.
      this.#backoff.clear(key)
      paths.push(instancePath(current.match))
    }
    return paths
  }

  /** An instance the store let go: no mark nor failure of it is left. */
  forget(key: string): void {
    this.#named.delete(key)
    this.#failing.delete(key)
  }

  /** Loads an instance again, once at a time: the new version (not current when the page is gone), or the current. */
  #regenerate(key: string, match: PageMatch<ServerPage>, reason: RegenerationReason): Promise<PageVersion | undefined> {
    const running = this.#running.get(key)
    if (running) return running
    const startMark = this.#revalidations
    this.#startMarks.set(key, startMark)
    const regeneration = this.#running.run(key, () =>
      this.#slots.run(() => this.#regenerateOnce(key, match, reason, startMark)),
    )
    void regeneration.finally(() => this.#startMarks.delete(key))
    return regeneration
  }

  async #regenerateOnce(
    key: string,
    match: PageMatch<ServerPage>,
    reason: RegenerationReason,
    startMark: number,
  ): Promise<PageVersion | undefined> {
    const startedAt = performance.now()
    const before = this.#store.get(key)?.version
    let loaderRan = true
    let repeated = false
    const report = (outcome: RegenerationReport['outcome'], error?: unknown) => {
      const durationMs = performance.now() - startedAt
      const path = instancePath(match)
      const failure = outcome === 'failed' ? { error, repeated } : {}
      this.#onRegeneration({ page: match.page, path, reason, durationMs, outcome, loaderRan, ...failure })
    }
    // Past its time, a version fits when it is newer than the current one and not past its own; when a revalidation
    // named the page, any version no revalidation has named since its loader started (the share checks that).
    const fits = (version: LoadedVersion) =>
      !this.#source.isPast(match.page, version.generatedAt) &&
      (reason !== 'time' || before === undefined || version.generatedAt > before.generatedAt)
    try {
      const made = await withLoaderTimeout(this.#source.make(match, fits), this.#loaderTimeoutMs)
      loaderRan = made.loaderRan
      const { version } = made
      if ((this.#named.get(key)?.mark ?? 0) <= startMark) this.#named.delete(key)
      this.#backoff.clear(key)
      this.#failing.delete(key)
      if ('notFound' in version.answer) {
        this.#store.delete(key)
        report('removed')
      } else {
        this.#store.set(version.key, { version, match })
        report('regenerated')
      }
      return version
    } catch (error) {
      this.#backoff.failed(key, error)
      this.#failedTotal += 1
      repeated = this.#failing.has(key)
      this.#failing.add(key)
      report('failed', error)
      return this.#store.get(key)?.version
    }
  }
}
