import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import { caches } from '../../config/caches.ts'
import { LocalRateLimit, type Exceeding, type RateCount } from './local-rate-limit.ts'

/** One route's counts where the fleet shares them. */
export interface RateLimitCounter {
  incr(key: string, timeWindow: number, max: number): Promise<RateCount>
  read(key: string): Promise<RateCount>
}

/** Where the fleet counts (Redis: src/shared-state/redis-rate-limit.ts), and whether it can now. */
export interface SharedRateLimits {
  /** When false, counts stay on this instance without a command being sent. */
  readonly up: boolean
  /** The counts of one route (`''`: the plugin's own, before any route's) with how its windows renew. */
  counter(route: string, exceeding: Exceeding): RateLimitCounter
  /** Says a failed command (the connection's own lines say that it is down). */
  failed(error: unknown, command: string): void
}

type Callback = (error: Error | null, result?: RateCount) => void
type ChildOptions = Parameters<FastifyRateLimitStore['child']>[0]

/** A setting the plugin passes a store: its resolved options, of which the types name only some (its index.js). */
function setting(options: object, name: string): unknown {
  return name in options ? (options as Readonly<Record<string, unknown>>)[name] : undefined
}

/** A route's name in the shared keys: the plugin gives a route's store its method and URL under `routeInfo`. */
function routeName(options: object): string {
  const info = setting(options, 'routeInfo')
  if (typeof info !== 'object' || info === null) return ''
  const [method, url] = [setting(info, 'method'), setting(info, 'url')]
  if (typeof url !== 'string') return ''
  return `${Array.isArray(method) ? method.join(',') : typeof method === 'string' ? method : ''}${url}`
}

/**
 * A @fastify/rate-limit store (its public `store` option) with one budget per client across instances: counted where
 * the fleet shares them while that is up, and in this instance's memory (bounded: config/caches.ts rateLimitClients)
 * while it is down or a command fails. A client's count starts afresh locally during an outage: a flood is still
 * limited per instance, and no request fails for want of Redis. A route's own limit (`config.rateLimit`) and a limiter
 * made with `createRateLimit` get a child store: counts of their own.
 */
export function sharedRateLimitStore(shared: SharedRateLimits): FastifyRateLimitStoreCtor {
  class SharedRateLimitStore implements FastifyRateLimitStore {
    readonly #shared: RateLimitCounter
    readonly #local: LocalRateLimit

    constructor(options: FastifyRateLimitOptions, route = '') {
      const exceeding: Exceeding = {
        continueExceeding: setting(options, 'continueExceeding') === true,
        exponentialBackoff: setting(options, 'exponentialBackoff') === true,
      }
      const cache = setting(options, 'cache')
      const bounds = typeof cache === 'number' ? { ...caches.rateLimitClients, maxEntries: cache } : undefined
      this.#shared = shared.counter(route, exceeding)
      this.#local = new LocalRateLimit(exceeding, bounds)
    }

    incr(key: string, callback: Callback, timeWindow: number, max: number): void {
      if (!shared.up) return callback(null, this.#local.incr(key, timeWindow, max))
      this.#shared.incr(key, timeWindow, max).then(
        (count) => callback(null, count),
        (error: unknown) => {
          shared.failed(error, 'rate-limit incr')
          callback(null, this.#local.incr(key, timeWindow, max))
        },
      )
    }

    /** The plugin's `{ increment: false }`: the count without counting. */
    read(key: string, callback: Callback): void {
      if (!shared.up) return callback(null, this.#local.read(key))
      this.#shared.read(key).then(
        (count) => callback(null, count),
        (error: unknown) => {
          shared.failed(error, 'rate-limit read')
          callback(null, this.#local.read(key))
        },
      )
    }

    child(routeOptions: ChildOptions): FastifyRateLimitStore {
      return new SharedRateLimitStore(routeOptions, routeName(routeOptions))
    }
  }

  return SharedRateLimitStore
}
