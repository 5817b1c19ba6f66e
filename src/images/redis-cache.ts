import type { FastifyBaseLogger } from 'fastify'
import type { SharedStateLimits } from '../../config/shared-state.ts'
import { FleetLock } from '../shared-state/fleet-lock.ts'
import type { SharedRedis } from '../shared-state/redis.ts'
import type { CacheEntryMeta } from './disk-cache.ts'

export interface SharedImage {
  meta: CacheEntryMeta
  bytes: Buffer
}

export type SharedImageLimits = Pick<
  SharedStateLimits,
  'imageLockMs' | 'imageWaitPollMs' | 'imageWaitMaxMs' | 'imageRetentionMs' | 'imageMaxTtlMs'
>

export interface SharedImageCacheOptions {
  redis: SharedRedis
  limits: SharedImageLimits
  now: () => number
}

const keyPattern = /^[a-f0-9]{64}$/
/** A meta longer than this is not one Courier wrote. */
const metaMaxBytes = 4096

/** One Redis value per image: a 4-byte length, the JSON meta, the bytes (the disk cache's file layout). */
function encode(meta: CacheEntryMeta, bytes: Buffer): Buffer {
  const metaBytes = Buffer.from(JSON.stringify(meta), 'utf8')
  const length = Buffer.alloc(4)
  length.writeUInt32BE(metaBytes.length, 0)
  return Buffer.concat([length, metaBytes, bytes])
}

/** The entry in a Redis value, or undefined when the value is not one Courier wrote for `key`. */
function decode(key: string, value: Buffer): SharedImage | undefined {
  if (value.length < 4) return undefined
  const metaLength = value.readUInt32BE(0)
  if (metaLength > metaMaxBytes || value.length < 4 + metaLength) return undefined
  let meta: CacheEntryMeta
  try {
    meta = JSON.parse(value.subarray(4, 4 + metaLength).toString('utf8')) as CacheEntryMeta
  } catch {
    return undefined
  }
  const bytes = value.subarray(4 + metaLength)
  const valid =
    meta.key === key &&
    keyPattern.test(meta.key) &&
    typeof meta.contentType === 'string' &&
    typeof meta.filename === 'string' &&
    typeof meta.etag === 'string' &&
    Number.isFinite(meta.maxAgeS) &&
    Number.isFinite(meta.expiresAt) &&
    meta.size === bytes.length
  return valid ? { meta, bytes } : undefined
}

/**
 * The optimizer's shared tier (REDIS_URL): optimized images in Redis with their expiry, so every instance agrees on
 * MISS / HIT / STALE and the 60 s minimum, and one transform per image cluster-wide through a short lock
 * (`SET NX PX`): an instance that finds the lock taken waits for the holder's result instead of transforming too.
 * Redis slow or gone: every method answers "nothing shared" within the command time-out, and the instance works
 * alone (its disk cache, its own transform).
 */
export class SharedImageCache {
  readonly #redis: SharedRedis
  readonly #limits: SharedImageLimits
  readonly #now: () => number
  readonly #lock: FleetLock

  constructor(options: SharedImageCacheOptions) {
    this.#redis = options.redis
    this.#limits = options.limits
    this.#now = options.now
    this.#lock = new FleetLock(options.redis, options.now)
  }

  #entryKey(key: string): string {
    return `${this.#redis.keyPrefix}image:${key}`
  }

  #lockKey(key: string): string {
    return `${this.#redis.keyPrefix}image-lock:${key}`
  }

  /** The shared entry under `key`, fresh or stale; undefined when there is none or Redis cannot say. */
  async get(key: string): Promise<SharedImage | undefined> {
    if (!this.#redis.up) return undefined
    try {
      const value = await this.#redis.client.getBuffer(this.#entryKey(key))
      return value ? decode(key, value) : undefined
    } catch (error) {
      this.#redis.commandFailed(error, 'image get')
      return undefined
    }
  }

  /**
   * Stores an entry for every instance: kept past its expiry (served STALE) for the retention time, and never longer
   * than the bounded time to live, however long the source said it stays fresh.
   */
  async put(meta: CacheEntryMeta, bytes: Buffer): Promise<void> {
    if (!this.#redis.up) return
    const { imageRetentionMs, imageMaxTtlMs } = this.#limits
    const keepMs = Math.min(Math.max(1, meta.expiresAt - this.#now()) + imageRetentionMs, imageMaxTtlMs)
    try {
      await this.#redis.client.set(this.#entryKey(meta.key), encode(meta, bytes), 'PX', keepMs)
    } catch (error) {
      this.#redis.commandFailed(error, 'image put')
    }
  }

  /**
   * The image for `key`, made once for the cluster (src/shared-state/fleet-lock.ts): a fresh one another instance
   * made, or `make`'s, made holding the key's lock and shared; `make`'s alone when Redis cannot help. `made`: this
   * instance made it.
   */
  produce(
    key: string,
    make: () => Promise<SharedImage>,
    log: FastifyBaseLogger,
  ): Promise<{ value: SharedImage; made: boolean }> {
    const { imageLockMs, imageWaitPollMs, imageWaitMaxMs } = this.#limits
    return this.#lock.produce(
      this.#lockKey(key),
      { lockMs: imageLockMs, pollMs: imageWaitPollMs, waitMs: imageWaitMaxMs },
      {
        find: async () => {
          const found = await this.get(key)
          return found && found.meta.expiresAt > this.#now() ? found : undefined
        },
        make: async () => {
          const made = await make()
          await this.put(made.meta, made.bytes)
          return made
        },
        makeAlone: make,
      },
      log,
    )
  }
}
