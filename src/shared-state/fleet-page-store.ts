import type { LoadedVersion } from '../pages/page-version.ts'
import type { FleetProduction } from './fleet-lock.ts'
import type { RevalidationMessage } from '../pages/revalidation.ts'

/** A version as the fleet keeps it: with the newest revalidation's number when its loader started. */
export interface SharedPageVersion extends LoadedVersion {
  seq: number
}

/**
 * Where the fleet keeps page versions and reads its revalidation log: Redis with REDIS_URL
 * (src/shared-state/redis-page-store.ts), memory in the unit tests (test/helpers/memory-page-store.ts). What a
 * version is worth is decided above it, once, in src/shared-state/shared-pages.ts.
 */
export interface FleetPageStore {
  /** The version kept for `key` (undefined: none, or one unreadable) and the newest revalidation's number;
   * `unavailable` when the store cannot say. */
  read(key: string): Promise<{ version: SharedPageVersion | undefined; newest: number } | 'unavailable'>
  /** The newest revalidation's number (0 when the store cannot say). */
  newest(): Promise<number>
  /** The revalidations numbered after `since`, up to `upTo`; `gone` when the log no longer reaches back that far;
   * `unavailable` when the store cannot say. */
  revalidationsSince(since: number, upTo: number): Promise<RevalidationMessage[] | 'gone' | 'unavailable'>
  /** Keeps `version` of `key` for the others (a failure is the store's to log: the version is served anyway). */
  write(key: string, version: SharedPageVersion): Promise<void>
  /** The value of `key` made once for the fleet: found, made holding its lock, or waited for from the holder. */
  produce<Value>(key: string, production: FleetProduction<Value>): Promise<{ value: Value; made: boolean }>
}
