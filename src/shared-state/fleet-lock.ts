import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { SharedRedis } from './redis.ts'

/** Deletes the lock only if it is still ours (it may have expired and been taken by another instance meanwhile). */
const releaseScript = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export interface FleetLockTiming {
  /** The lock's time to live (`SET NX PX`): above the longest making, so a holder that crashed frees it by itself. */
  lockMs: number
  /** How often an instance that found the lock taken looks again for the holder's result. */
  pollMs: number
  /** How long it waits for the holder at most, then makes the value itself. */
  waitMs: number
}

/** The three steps of making one value once for the fleet. */
export interface FleetProduction<Value> {
  /** The value the fleet has that will do now; undefined when none does; `unavailable` when Redis cannot say. */
  find(): Promise<Value | undefined | 'unavailable'>
  /** Makes it, holding the lock, and shares it (the others are waiting for it). */
  make(): Promise<Value>
  /** Makes it for this instance alone: Redis is down, or the holder took longer than `waitMs`. */
  makeAlone(): Promise<Value>
}

/**
 * One producer per key for the whole fleet (REDIS_URL): find the value the fleet has, else take the key's lock and
 * make it, else wait for the holder's (polling), and make it here when Redis cannot help. Page versions
 * (src/shared-state/shared-pages.ts) and optimized images (src/images/optimizer.ts) are made through it.
 */
export class FleetLock {
  readonly #redis: SharedRedis
  readonly #now: () => number

  constructor(redis: SharedRedis, now: () => number = Date.now) {
    this.#redis = redis
    this.#now = now
  }

  /** The value for the lock `lockKey`, and whether this instance made it (holding the lock, or alone). */
  async produce<Value>(
    lockKey: string,
    timing: FleetLockTiming,
    production: FleetProduction<Value>,
    log: FastifyBaseLogger,
  ): Promise<{ value: Value; made: boolean }> {
    const alone = async () => ({ value: await production.makeAlone(), made: true })
    const deadline = this.#now() + timing.waitMs
    for (;;) {
      if (!this.#redis.up) return alone()
      const found = await production.find()
      if (found === 'unavailable') return alone()
      if (found !== undefined) return { value: found, made: false }
      const token = randomUUID()
      let taken: string | null
      try {
        taken = await this.#redis.client.set(lockKey, token, 'PX', timing.lockMs, 'NX')
      } catch (error) {
        this.#redis.commandFailed(error, 'lock')
        return alone()
      }
      if (taken === 'OK') return this.#holding(lockKey, token, production)
      if (this.#now() >= deadline) {
        log.warn({ lock: lockKey, waitedMs: timing.waitMs }, 'lock held too long by another instance: making it here')
        return alone()
      }
      await sleep(timing.pollMs)
    }
  }

  async #holding<Value>(
    lockKey: string,
    token: string,
    production: FleetProduction<Value>,
  ): Promise<{ value: Value; made: boolean }> {
    try {
      // Another instance may have finished (and let go of the lock) since the look above.
      const found = await production.find()
      if (found !== undefined && found !== 'unavailable') return { value: found, made: false }
      return { value: await production.make(), made: true }
    } finally {
      await this.#release(lockKey, token)
    }
  }

  async #release(lockKey: string, token: string): Promise<void> {
    if (!this.#redis.up) return // it expires by itself
    try {
      await this.#redis.client.eval(releaseScript, 1, lockKey, token)
    } catch (error) {
      this.#redis.commandFailed(error, 'unlock')
    }
  }
}
