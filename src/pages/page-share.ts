import type { RevalidationMessage } from './revalidation.ts'
import type { LoadedVersion } from './page-version.ts'

/** What makes a version another instance made fit for an instance that wants one. */
export interface PageWanted {
  /** Whether a revalidation names this page instance (its path, or a tag of the version's). */
  isNamed(message: RevalidationMessage, tags: readonly string[]): boolean
  /** Whether the version is one this instance may serve now: not past its `revalidate` time, newer than its own. */
  fits(version: LoadedVersion): boolean
}

export interface ProducedVersion {
  version: LoadedVersion
  /** Whether this instance ran the loader for it (else another instance did). */
  loaderRan: boolean
}

/**
 * Where page versions are produced: with REDIS_URL, once for the fleet (src/shared-state/shared-pages.ts); on one
 * instance, here (`loadHere`). Unit tests give the fleet's logic a store in memory (src/shared-state/memory-pages.ts).
 */
export interface PageShare {
  /** The version of page instance `key` that `wanted` takes: one made elsewhere, or one `load` makes here. */
  produce(key: string, wanted: PageWanted, load: () => Promise<LoadedVersion>): Promise<ProducedVersion>
}

/** One instance alone (no REDIS_URL): every loader run is its own. */
export const loadHere: PageShare = {
  async produce(_key, _wanted, load) {
    return { version: await load(), loaderRan: true }
  },
}
