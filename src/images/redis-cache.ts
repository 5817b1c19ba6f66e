import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { SharedStateLimits } from '../../config/shared-state.ts'
import type { SharedRedis } from '../shared-state/redis.ts'
import type { CacheEntryMeta } from './disk-cache.ts'

export interface SharedImage {
  meta: CacheEntryMeta
  bytes: Buffer
}

/** The outcome of asking for the cluster-wide right to transform an image. */
export type TransformClaim =
  | { kind: 'mine'; release: () => Promise<void> }
  /** Another instance is transforming it now. */
  | { kind: 'theirs' }
  /** Redis is down or slow: transform here, as a single instance would. */
  | { kind: 'unavailable' }

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

/** Deletes the lock only if it is still ours (it may have expired and been taken by another instance meanwhile). */
const releaseScript = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

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

  constructor(options: SharedImageCacheOptions) {
    this.#redis = options.redis
    this.#limits = options.limits
    this.#now = options.now
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

  /** Asks for the right to transform `key` (`SET NX PX`): one instance at a time, for at most the lock time. */
  async claim(key: string): Promise<TransformClaim> {
    if (!this.#redis.up) return { kind: 'unavailable' }
    const token = randomUUID()
    const lockKey = this.#lockKey(key)
    try {
      const taken = await this.#redis.client.set(lockKey, token, 'PX', this.#limits.imageLockMs, 'NX')
      if (taken !== 'OK') return { kind: 'theirs' }
    } catch (error) {
      this.#redis.commandFailed(error, 'image lock')
      return { kind: 'unavailable' }
    }
    return {
      kind: 'mine',
      release: async () => {
        if (!this.#redis.up) return // it expires by itself
        try {
          await this.#redis.client.eval(releaseScript, 1, lockKey, token)
        } catch (error) {
          this.#redis.commandFailed(error, 'image unlock')
        }
      },
    }
  }

  /**
   * Waits for the instance holding the lock: resolves with its entry once one fresher than `now` is in Redis; with
   * undefined when the lock is gone without one (the holder failed: transform here, and meet the same error), when
   * the wait runs out, or when Redis cannot say.
   */
  async waitFor(key: string, log: FastifyBaseLogger): Promise<SharedImage | undefined> {
    const { imageWaitPollMs, imageWaitMaxMs } = this.#limits
    const deadline = this.#now() + imageWaitMaxMs
    while (this.#now() < deadline) {
      await sleep(imageWaitPollMs)
      if (!this.#redis.up) return undefined
      try {
        const [value, locked] = await Promise.all([
          this.#redis.client.getBuffer(this.#entryKey(key)),
          this.#redis.client.exists(this.#lockKey(key)),
        ])
        const found = value ? decode(key, value) : undefined
        if (found && found.meta.expiresAt > this.#now()) return found
        if (locked === 0) return undefined
      } catch (error) {
        this.#redis.commandFailed(error, 'image wait')
        return undefined
      }
    }
    log.warn({ key, waitedMs: imageWaitMaxMs }, 'image lock held too long by another instance: transforming here')
    return undefined
  }
}
