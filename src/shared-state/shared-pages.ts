import type { FastifyBaseLogger } from 'fastify'
import { sharedPages } from '../../config/content.ts'
import type { PageShare, PageWanted, ProducedVersion } from '../pages/page-share.ts'
import type { LoadedVersion } from '../pages/page-version.ts'
import type { FleetPageStore, SharedPageVersion } from './fleet-page-store.ts'

export interface SharedPagesOptions {
  /** Says a version ignored as not the fleet's (`implausible`). */
  log: FastifyBaseLogger
  /** This instance's clock (ms), the one versions are stamped with. */
  now?: () => number
  /** config/content.ts sharedPages.clockSkewMs. */
  clockSkewMs?: number
}

/**
 * Kept pages shared by the fleet (REDIS_URL; docs/content.md "Across the fleet"): one loader run per page instance
 * for the whole fleet, and the same version (the same page data bytes and ETag) on every instance. An instance that
 * needs a version (first request, `revalidate` time passed, a revalidation named it) takes the one the fleet keeps
 * when it fits: newer than its own, within its `revalidate` time, and named by no revalidation numbered after its
 * loader started (the revalidation log says). Otherwise it takes the page's lock and runs the loader, or, when
 * another instance holds the lock, waits for that one's version. The store down or slow: the loader runs here, as on
 * a single instance. The store is Redis in production and memory in the unit tests: this logic is the same for both.
 * A version no instance can have written (stamped in the future, or numbered past the newest revalidation) is ignored
 * with one warn line and made again (docs/running-at-scale.md "Shared state: `REDIS_URL`").
 */
export class SharedPages implements PageShare {
  readonly #store: FleetPageStore
  readonly #log: FastifyBaseLogger
  readonly #now: () => number
  readonly #clockSkewMs: number

  constructor(store: FleetPageStore, options: SharedPagesOptions) {
    this.#store = store
    this.#log = options.log
    this.#now = options.now ?? Date.now
    this.#clockSkewMs = options.clockSkewMs ?? sharedPages.clockSkewMs
  }

  /** The version of `key` that `wanted` takes: the fleet's, or one this instance loads (once fleet-wide). */
  async produce(key: string, wanted: PageWanted, load: () => Promise<LoadedVersion>): Promise<ProducedVersion> {
    // One warn line per production, however often the lock has it look at the store.
    let ignored = false
    const distrust = (version: SharedPageVersion, newest: number): boolean => {
      const reason = this.#implausible(version, newest)
      if (reason && !ignored) {
        ignored = true
        const { seq, generatedAt } = version
        this.#log.warn({ key, reason, seq, newest, generatedAt }, 'shared page version ignored: not one the fleet made')
      }
      return reason !== undefined
    }
    const { value, made } = await this.#store.produce<LoadedVersion>(key, {
      find: () => this.#fitting(key, wanted, distrust),
      make: async () => {
        // The number before the loader reads: a revalidation numbered after it may name what the loader read too late.
        const seq = await this.#store.newest()
        const version = await load()
        // Only a page that exists is shared: a not-found (or a redirect) answer for any path a client makes up would
        // let anyone fill the store with versions of pages that are not there (docs/content.md "What Redis holds").
        if ('props' in version.answer) await this.#store.write(key, { ...version, seq })
        return version
      },
      makeAlone: load,
    })
    return { version: value, loaderRan: made }
  }

  /** The version kept when it fits; undefined when there is none that does; `unavailable` when the store cannot say. */
  async #fitting(
    key: string,
    wanted: PageWanted,
    distrust: (version: SharedPageVersion, newest: number) => boolean,
  ): Promise<SharedPageVersion | undefined | 'unavailable'> {
    const read = await this.#store.read(key)
    if (read === 'unavailable') return read
    const { version, newest } = read
    // An implausible version is as good as none: the loader runs and its version overwrites it.
    if (!version || distrust(version, newest) || !wanted.fits(version)) return undefined
    if (version.seq >= newest) return version
    const since = await this.#store.revalidationsSince(version.seq, newest)
    if (since === 'unavailable') return since
    if (since === 'gone') return undefined
    return since.some((message) => wanted.isNamed(message, version.tags)) ? undefined : version
  }

  /**
   * Why a kept version cannot be one an instance of the fleet wrote (anything that reaches Redis can write one):
   * stamped in the future, beyond the clocks' skew (it would never be past its `revalidate` time), or numbered after
   * the newest revalidation (no revalidation would ever count as newer than it). Undefined: it may be.
   */
  #implausible(version: SharedPageVersion, newest: number): 'future' | 'seq' | undefined {
    if (version.generatedAt > this.#now() + this.#clockSkewMs) return 'future'
    if (version.seq > newest) return 'seq'
    return undefined
  }
}
