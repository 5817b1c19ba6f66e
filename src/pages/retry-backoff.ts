import type { CacheBounds } from '../../config/caches.ts'
import { BoundedCache } from '../bounded-cache.ts'

/**
 * After a failed load of a page instance, none before `backoffMs` later (config/content.ts retryBackoffMs): a source
 * that is down, or content that fails, is not read again by every request. A regeneration's failure keeps the current
 * version served meanwhile; a first load's failure is kept with it, and given again to the requests of the back-off.
 * A revalidation is a new reason to try at once. Bounded (config/caches.ts failedLoads): an instance pushed out by a
 * flood of others may be tried again early.
 */
export class RetryBackoff {
  readonly #backoffMs: number
  readonly #now: () => number
  /** By key: no load before `retryAt` (ms); the failure that started the back-off. */
  readonly #failed: BoundedCache<string, { retryAt: number; failure: unknown }>

  constructor(backoffMs: number, now: () => number, bounds: CacheBounds) {
    this.#backoffMs = backoffMs
    this.#now = now
    this.#failed = new BoundedCache(bounds, (_entry, key) => 2 * key.length + 64)
  }

  /** Whether the instance `key` may be loaded now. */
  mayTry(key: string): boolean {
    return this.failure(key) === undefined
  }

  /** The failure of the last load of `key` while its back-off lasts; undefined once it may be tried again. */
  failure(key: string): unknown {
    const failed = this.#failed.get(key)
    if (!failed) return undefined
    if (this.#now() < failed.retryAt) return failed.failure
    this.#failed.delete(key)
    return undefined
  }

  failed(key: string, failure: unknown = new Error('failed')): void {
    if (this.#backoffMs > 0) this.#failed.set(key, { retryAt: this.#now() + this.#backoffMs, failure })
  }

  clear(key: string): void {
    this.#failed.delete(key)
  }

  /** Every back-off ends (a revalidation that may name any instance). */
  clearAll(): void {
    this.#failed.clear()
  }
}
