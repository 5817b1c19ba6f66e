import type { PageShare, PageWanted, ProducedVersion } from '../pages/page-share.ts'
import type { LoadedVersion } from '../pages/page-version.ts'
import type { FleetPageStore, SharedPageVersion } from './fleet-page-store.ts'

/**
 * Kept pages shared by the fleet (REDIS_URL; docs/content.md "Across the fleet"): one loader run per page instance
 * for the whole fleet, and the same version (the same page data bytes and ETag) on every instance. An instance that
 * needs a version (first request, `revalidate` time passed, a revalidation named it) takes the one the fleet keeps
 * when it fits: newer than its own, within its `revalidate` time, and named by no revalidation numbered after its
 * loader started (the revalidation log says). Otherwise it takes the page's lock and runs the loader, or, when
 * another instance holds the lock, waits for that one's version. The store down or slow: the loader runs here, as on
 * a single instance. The store is Redis in production and memory in the unit tests: this logic is the same for both.
 */
export class SharedPages implements PageShare {
  readonly #store: FleetPageStore

  constructor(store: FleetPageStore) {
    this.#store = store
  }

  /** The version of `key` that `wanted` takes: the fleet's, or one this instance loads (once fleet-wide). */
  async produce(key: string, wanted: PageWanted, load: () => Promise<LoadedVersion>): Promise<ProducedVersion> {
    const { value, made } = await this.#store.produce<LoadedVersion>(key, {
      find: () => this.#fitting(key, wanted),
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
  async #fitting(key: string, wanted: PageWanted): Promise<SharedPageVersion | undefined | 'unavailable'> {
    const read = await this.#store.read(key)
    if (read === 'unavailable') return read
    const { version, newest } = read
    if (!version || !wanted.fits(version)) return undefined
    if (version.seq >= newest) return version
    const since = await this.#store.revalidationsSince(version.seq, newest)
    if (since === 'unavailable') return since
    if (since === 'gone') return undefined
    return since.some((message) => wanted.isNamed(message, version.tags)) ? undefined : version
  }
}
