import type { PageMatch } from '../common/match.ts'
import { SingleFlight } from '../toolbox/single-flight.ts'
import { withLoaderTimeout } from './version-source.ts'
import { instancePath, type LoadedVersion, type PageVersion } from './page-version.ts'
import type { RetryBackoff } from './retry-backoff.ts'
import type { ServerPage } from './site.ts'
import type { CurrentVersion, PageVersionStore, RegenerationReason } from './version-store.ts'
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
}

export interface RegenerationsOptions {
  store: PageVersionStore
  source: VersionSource
  backoff: RetryBackoff
  /** A regeneration's loader that has not answered by then fails (config/content.ts). */
  loaderTimeoutMs: number
  /** Told of every regeneration's end. */
  onRegeneration: (report: RegenerationReport) => void
  now: () => number
}

/**
 * Loads current versions again: stale-while-revalidate when a page's `revalidate` time has passed (the current
 * version is served meanwhile, one regeneration runs in the background), and on demand when a revalidation names an
 * instance (requests then wait for its one regeneration). One regeneration per instance at a time; one that fails or
 * times out keeps the current version, and the next waits for the back-off.
 */
export class Regenerations {
  readonly #store: PageVersionStore
  readonly #source: VersionSource
  readonly #backoff: RetryBackoff
  readonly #loaderTimeoutMs: number
  readonly #onRegeneration: (report: RegenerationReport) => void
  readonly #now: () => number
  readonly #running = new SingleFlight<string, PageVersion | undefined>()
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

  /** The regeneration a request must wait for (a revalidation named the instance); undefined when none. */
  awaitNamed(current: CurrentVersion): Promise<PageVersion | undefined> | undefined {
    const { key } = current.version
    const named = this.#named.get(key)
    if (!named || !this.#backoff.mayTry(key)) return undefined
    return this.#regenerate(key, current.match, named.reason)
  }

  /** Marks the instances a revalidation named and starts each one's regeneration: their paths. */
  name(named: Map<string, { reason: RegenerationReason; current: CurrentVersion }>): string[] {
    const mark = ++this.#revalidations
    const paths: string[] = []
    for (const [key, { reason, current }] of named) {
      this.#named.set(key, { reason, mark })
      // A revalidation is a new reason to try now, whatever failed before.
      this.#backoff.clear(key)
      void this.#regenerate(key, current.match, reason)
      paths.push(instancePath(current.match))
    }
    return paths
  }

  /**
   * Regenerates the named instances while requests keep getting their current versions; resolves once each has its
   * new version (or has failed and kept the current one): their paths.
   */
  async regenerateNow(named: Map<string, { reason: RegenerationReason; current: CurrentVersion }>): Promise<string[]> {
    const entries = [...named]
    await Promise.all(
      entries.map(async ([key, { reason, current }]) => {
        // One that started before this call may have read the content before the change: this one starts after it.
        await this.#running.get(key)
        this.#backoff.clear(key)
        await this.#regenerate(key, current.match, reason)
      }),
    )
    return entries.map(([, { current }]) => instancePath(current.match))
  }

  /** Loads an instance again, once at a time: the new version (not current when the page is gone), or the current. */
  #regenerate(key: string, match: PageMatch<ServerPage>, reason: RegenerationReason): Promise<PageVersion | undefined> {
    const running = this.#running.get(key)
    if (running) return running
    const startMark = this.#revalidations
    const regeneration = this.#running.run(key, () => this.#regenerateOnce(key, match, reason, startMark))
    void regeneration.finally(() => {
      // Named again while this one ran (it may have read the content before the change): once more.
      const again = this.#named.get(key)
      const current = this.#store.get(key)
      if (again && again.mark > startMark && current && this.#backoff.mayTry(key)) {
        void this.#regenerate(key, current.match, again.reason)
      }
    })
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
    const report = (outcome: RegenerationReport['outcome'], error?: unknown) => {
      const durationMs = performance.now() - startedAt
      const path = instancePath(match)
      this.#onRegeneration({ page: match.page, path, reason, durationMs, outcome, loaderRan, error })
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
      if ('notFound' in version.answer) {
        this.#store.delete(key)
        report('removed')
      } else {
        this.#store.set(version, match)
        report('regenerated')
      }
      return version
    } catch (error) {
      this.#backoff.failed(key, error)
      report('failed', error)
      return this.#store.get(key)?.version
    }
  }
}
