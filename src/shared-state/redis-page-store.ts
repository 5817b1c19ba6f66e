import type { FastifyBaseLogger } from 'fastify'
import { sharedPages } from '../../config/content.ts'
import { FleetLock, type FleetProduction } from './fleet-lock.ts'
import type { FleetPageStore, SharedPageVersion } from './fleet-page-store.ts'
import type { SharedRedis } from './redis.ts'
import { revalidationKeys, revalidationsSince } from './redis-revalidation-log.ts'
import { parseSeq } from './revalidation-log.ts'
import type { RevalidationMessage } from '../pages/revalidation.ts'

export interface RedisPageStoreOptions {
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
 * The fleet's page versions in Redis (docs/content.md "What Redis holds"): one key per page instance and deployment
 * (a new deployment's loaders may answer another shape), kept `retentionMs`; the lock is `SET NX PX`
 * (src/shared-state/fleet-lock.ts). A failed command is reported to the connection and answered `unavailable`.
 */
export class RedisPageStore implements FleetPageStore {
  readonly #redis: SharedRedis
  readonly #deploymentId: string
  readonly #log: FastifyBaseLogger
  readonly #limits: typeof sharedPages
  readonly #lock: FleetLock

  constructor(options: RedisPageStoreOptions) {
    this.#redis = options.redis
    this.#deploymentId = options.deploymentId
    this.#log = options.log
    this.#limits = { ...sharedPages, ...options.limits }
    this.#lock = new FleetLock(options.redis, options.now)
  }

  #versionKey(key: string): string {
    return `${this.#redis.keyPrefix}page:${this.#deploymentId}:${key}`
  }

  #lockKey(key: string): string {
    return `${this.#redis.keyPrefix}page-lock:${this.#deploymentId}:${key}`
  }

  async read(key: string): Promise<{ version: SharedPageVersion | undefined; newest: number } | 'unavailable'> {
    try {
      const [text, newest] = await this.#redis.client.mget(this.#versionKey(key), revalidationKeys(this.#redis).seq)
      return { version: readVersion(text ?? null, key), newest: parseSeq(newest) }
    } catch (error) {
      this.#redis.commandFailed(error, 'page get')
      return 'unavailable'
    }
  }

  newest(): Promise<number> {
    return this.#redis.client.get(revalidationKeys(this.#redis).seq).then(parseSeq, () => 0)
  }

  async revalidationsSince(since: number, upTo: number): Promise<RevalidationMessage[] | 'gone' | 'unavailable'> {
    try {
      return await revalidationsSince(this.#redis, since, upTo)
    } catch (error) {
      this.#redis.commandFailed(error, 'page get')
      return 'unavailable'
    }
  }

  async write(key: string, version: SharedPageVersion): Promise<void> {
    try {
      const { seq, generatedAt, tags, answer } = version
      const text = JSON.stringify({ key, seq, generatedAt, tags, answer })
      await this.#redis.client.set(this.#versionKey(key), text, 'PX', this.#limits.retentionMs)
    } catch (error) {
      this.#redis.commandFailed(error, 'page put')
    }
  }

  produce<Value>(key: string, production: FleetProduction<Value>): Promise<{ value: Value; made: boolean }> {
    const { lockMs, waitPollMs } = this.#limits
    return this.#lock.produce(this.#lockKey(key), { lockMs, pollMs: waitPollMs, waitMs: lockMs }, production, this.#log)
  }
}
