import type { FastifyRateLimitOptions, FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import LocalStore from '@fastify/rate-limit/store/LocalStore.js'
import RedisStore from '@fastify/rate-limit/store/RedisStore.js'
import type { SharedRedis } from './redis.ts'

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void
type Store = InstanceType<typeof LocalStore>
interface StoreSettings {
  continueExceeding?: boolean
  exponentialBackoff?: boolean
  cache?: number
}
type ChildOptions = Parameters<FastifyRateLimitStore['child']>[0]

/**
 * A @fastify/rate-limit store with one budget per client across instances: @fastify/rate-limit's own Redis store
 * while Redis is up, and its own local store (this process's budget) while Redis is down or a command fails. A
 * client's count starts afresh locally during an outage: a flood is still limited per instance, and no request fails
 * for want of Redis.
 */
export function sharedRateLimitStore(redis: SharedRedis): FastifyRateLimitStoreCtor {
  const namespace = `${redis.keyPrefix}rate-limit:`

  class SharedRateLimitStore implements FastifyRateLimitStore {
    readonly #shared: Store
    readonly #local: Store

    constructor(options: FastifyRateLimitOptions, stores?: { shared: Store; local: Store }) {
      // The plugin constructs a store with its resolved settings, more than the options type names.
      const { continueExceeding = false, exponentialBackoff = false, cache } = options as StoreSettings
      this.#shared = stores?.shared ?? new RedisStore(continueExceeding, exponentialBackoff, redis.client, namespace)
      this.#local = stores?.local ?? new LocalStore(continueExceeding, exponentialBackoff, cache)
    }

    incr(key: string, callback: Callback, timeWindow: number, max: number): void {
      this.#use('incr', key, callback, timeWindow, max)
    }

    read(key: string, callback: Callback, timeWindow: number, max: number): void {
      this.#use('read', key, callback, timeWindow, max)
    }

    #use(method: 'incr' | 'read', key: string, callback: Callback, timeWindow: number, max: number): void {
      if (!redis.up) return this.#local[method](key, callback, timeWindow, max)
      this.#shared[method](
        key,
        (error, result) => {
          if (!error) return callback(null, result)
          redis.commandFailed(error, `rate-limit ${method}`)
          this.#local[method](key, callback, timeWindow, max)
        },
        timeWindow,
        max,
      )
    }

    child(routeOptions: ChildOptions): FastifyRateLimitStore {
      return new SharedRateLimitStore({}, {
        shared: this.#shared.child(routeOptions) as Store,
        local: this.#local.child(routeOptions) as Store,
      })
    }
  }

  return SharedRateLimitStore
}
