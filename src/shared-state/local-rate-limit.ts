import { caches, type CacheBounds } from '../../config/caches.ts'
import { BoundedCache } from '../bounded-cache.ts'

/** What a rate-limit store answers the plugin: the client's count in its window and the window's milliseconds left. */
export interface RateCount {
  current: number
  ttl: number
}

/**
 * How a window renews once a client is over its budget, as @fastify/rate-limit's options of the same names say (its
 * README): `continueExceeding`, every request over the budget starts the window again (it wins over the next);
 * `exponentialBackoff`, each request over the budget doubles the window (`timeWindow * 2 ** (count - max - 1)`).
 */
export interface Exceeding {
  continueExceeding: boolean
  exponentialBackoff: boolean
}

/** The longest window a back-off reaches: the plugin's bound, a whole number of milliseconds. */
const longestWindowMs = Number.MAX_SAFE_INTEGER

/** The window a request opens: the time window, or longer past the budget with one of the two options. */
export function windowAfter(count: number, timeWindow: number, max: number, exceeding: Exceeding): number | undefined {
  if (count === 1 || (exceeding.continueExceeding && count > max)) return timeWindow
  if (exceeding.exponentialBackoff && count > max) {
    return Math.min(timeWindow * 2 ** (count - max - 1), longestWindowMs)
  }
  return undefined
}

interface Window {
  count: number
  /** When the window ends (this instance's clock, ms). */
  endsAt: number
}

/** A key's count is its text and two numbers. */
const sizeOf = (_window: Window, key: string) => key.length * 2 + 32

/**
 * Rate-limit counts in this instance's memory (every count without Redis, and the fall-back while Redis is down): one
 * window per client, bounded (config/caches.ts rateLimitClients; the least recently seen client goes first).
 */
export class LocalRateLimit {
  readonly #windows: BoundedCache<string, Window>
  readonly #exceeding: Exceeding
  readonly #now: () => number

  constructor(exceeding: Exceeding, bounds: CacheBounds = caches.rateLimitClients, now: () => number = Date.now) {
    this.#windows = new BoundedCache(bounds, sizeOf)
    this.#exceeding = exceeding
    this.#now = now
  }

  /** Counts a request of `key`'s client. */
  incr(key: string, timeWindow: number, max: number): RateCount {
    const now = this.#now()
    const kept = this.#windows.get(key)
    const count = kept && kept.endsAt > now ? kept.count + 1 : 1
    const renewed = windowAfter(count, timeWindow, max, this.#exceeding)
    const endsAt = renewed === undefined && kept ? kept.endsAt : now + (renewed ?? timeWindow)
    this.#windows.set(key, { count, endsAt })
    return { current: count, ttl: endsAt - now }
  }

  /** `key`'s count without counting (the plugin's `{ increment: false }`): 0 when its window is over. */
  read(key: string): RateCount {
    const now = this.#now()
    const kept = this.#windows.get(key)
    return kept && kept.endsAt > now ? { current: kept.count, ttl: kept.endsAt - now } : { current: 0, ttl: 0 }
  }
}
