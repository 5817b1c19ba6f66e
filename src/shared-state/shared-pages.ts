import type { FastifyBaseLogger } from 'fastify'
import { sharedPages } from '../../config/content.ts'
import type { PageAnswer } from '../../site/page-data.ts'
import { FleetLock } from './fleet-lock.ts'
import type { SharedRedis } from './redis.ts'
import { parseSeq, revalidationKeys, revalidationsSince, type RevalidationMessage } from './revalidation-log.ts'

/** A page instance's version as its loader made it: what every instance builds the same entry (and ETag) from. */
export interface PageVersion {
  answer: PageAnswer
  tags: readonly string[]
  /** When its loader ran (ms since the epoch): its `revalidate` time counts from here on every instance. */
  generatedAt: number
}

/** A version in Redis: with the newest revalidation's number when its loader started. */
export interface SharedPageVersion extends PageVersion {
  seq: number
}

/** What makes a shared version fit for an instance that wants one. */
export interface PageWanted {
  /** Whether a revalidation names this page instance (its path, or a tag of the version's). */
  isNamed(message: RevalidationMessage, tags: readonly string[]): boolean
  /** Whether the version is one this instance may serve now: not past its `revalidate` time, newer than its own. */
  fits(version: PageVersion): boolean
}

export interface ProducedVersion {
  version: PageVersion
  /** Whether this instance ran the loader for it (else another instance did). */
  loaderRan: boolean
}

export interface SharedPagesOptions {
  redis: SharedRedis
  deploymentId: string
  log: FastifyBaseLogger
  limits?: Partial<typeof sharedPages>
  now?: () => number
}

function readVersion(text: string | null, key: string): SharedPageVersion | undefined {
  if (text === null) return undefined
  try {
    const value = JSON.parse(text) as Partial<SharedPageVersion> & { key?: unknown }
    const valid =
      value.key === key &&
      typeof value.answer === 'object' &&
      value.answer !== null &&
      Array.isArray(value.tags) &&
      Number.isFinite(value.generatedAt) &&
      Number.isSafeInteger(value.seq)
    return valid ? (value as SharedPageVersion) : undefined
  } catch {
    return undefined
  }
}

/**
 * Kept pages shared by the fleet (REDIS_URL; docs/content.md "Across the fleet"): one loader run per page instance
 * for the whole fleet, and the same version (the same page data bytes and ETag) on every instance. An instance that
 * needs a version (first request, `revalidate` time passed, a revalidation named it) takes the one in Redis when it
 * fits: newer than its own, within its `revalidate` time, and named by no revalidation numbered after its loader
 * started (the revalidation log says). Otherwise it takes the page's lock (`SET NX PX`) and runs the loader, or,
 * when another instance holds the lock, waits for that one's version. Redis down or slow: the loader runs here, as on
 * a single instance.
 */
export class SharedPages {
  readonly #redis: SharedRedis
  readonly #deploymentId: string
  readonly #log: FastifyBaseLogger
  readonly #limits: typeof sharedPages
  readonly #now: () => number
  readonly #lock: FleetLock

  constructor(options: SharedPagesOptions) {
    this.#redis = options.redis
    this.#deploymentId = options.deploymentId
    this.#log = options.log
    this.#limits = { ...sharedPages, ...options.limits }
    this.#now = options.now ?? Date.now
    this.#lock = new FleetLock(options.redis, this.#now)
  }

  /** Keys per deployment: a new deployment's loaders may answer another shape. */
  #versionKey(key: string): string {
    return `${this.#redis.keyPrefix}page:${this.#deploymentId}:${key}`
  }

  #lockKey(key: string): string {
    return `${this.#redis.keyPrefix}page-lock:${this.#deploymentId}:${key}`
  }

  /** The version of `key` that `wanted` takes: the fleet's, or one this instance loads (once fleet-wide). */
  async produce(key: string, wanted: PageWanted, load: () => Promise<PageVersion>): Promise<ProducedVersion> {
    const { lockMs, waitPollMs } = this.#limits
    const { value, made } = await this.#lock.produce<PageVersion>(
      this.#lockKey(key),
      { lockMs, pollMs: waitPollMs, waitMs: lockMs },
      {
        find: () => this.#fitting(key, wanted),
        make: async () => {
          // The number before the loader reads: a revalidation numbered after it may name what the loader read too late.
          const seq = await this.#redis.client.get(revalidationKeys(this.#redis).seq).then(parseSeq, () => 0)
          const version = await load()
          // Only a page that exists is shared: a not-found (or a redirect) answer for any path a client makes up would
          // let anyone fill Redis with versions of pages that are not there (docs/content.md "What Redis holds").
          if ('props' in version.answer) await this.#store(key, { ...version, seq })
          return version
        },
        makeAlone: load,
      },
      this.#log,
    )
    return { version: value, loaderRan: made }
  }

  /** The version in Redis when it fits; undefined when there is none that does; `unavailable` when Redis cannot say. */
  async #fitting(key: string, wanted: PageWanted): Promise<SharedPageVersion | undefined | 'unavailable'> {
    try {
      const [text, newest] = await this.#redis.client.mget(this.#versionKey(key), revalidationKeys(this.#redis).seq)
      const version = readVersion(text ?? null, key)
      if (!version || !wanted.fits(version)) return undefined
      const seq = parseSeq(newest)
      if (version.seq >= seq) return version
      const since = await revalidationsSince(this.#redis, version.seq, seq)
      if (since === 'gone') return undefined
      return since.some((message) => wanted.isNamed(message, version.tags)) ? undefined : version
    } catch (error) {
      this.#redis.commandFailed(error, 'page get')
      return 'unavailable'
    }
  }

  async #store(key: string, version: SharedPageVersion): Promise<void> {
    try {
      const text = JSON.stringify({ key, seq: version.seq, generatedAt: version.generatedAt, tags: version.tags, answer: version.answer })
      await this.#redis.client.set(this.#versionKey(key), text, 'PX', this.#limits.retentionMs)
    } catch (error) {
      this.#redis.commandFailed(error, 'page put')
    }
  }
}
