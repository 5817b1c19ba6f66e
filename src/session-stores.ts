import type { FastifyBaseLogger } from 'fastify'
import type { Redis } from 'ioredis'
import { sessions as limits } from '../config/sessions.ts'
import { errors } from './errors.ts'
import { withTimeOut } from './toolbox/time-out.ts'

/** What a session holds: who signed in, the site's own values, and when it ends. */
export interface SessionRecord {
  userId?: string
  data: Readonly<Record<string, unknown>>
  /** Epoch milliseconds. */
  expiresAt: number
}

/** Where sessions are kept (docs/sessions.md "Where sessions are kept"). */
export interface SessionStore {
  get(id: string): Promise<SessionRecord | undefined>
  set(id: string, record: SessionRecord): Promise<void>
  destroy(id: string): Promise<void>
}

/**
 * Sessions in this process (no SESSION_REDIS_URL): bounded by count, the oldest going first, and each dropped once
 * past its expiry. They end with the process, and each instance has its own: a fleet uses Redis.
 */
export class MemorySessionStore implements SessionStore {
  readonly #records = new Map<string, SessionRecord>()
  readonly #max: number

  constructor(max = limits.memoryMaxSessions) {
    this.#max = max
  }

  get size(): number {
    return this.#records.size
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const record = this.#records.get(id)
    if (!record || record.expiresAt > Date.now()) return record && structuredClone(record)
    this.#records.delete(id)
    return undefined
  }

  async set(id: string, record: SessionRecord): Promise<void> {
    this.#records.delete(id)
    this.#records.set(id, structuredClone(record))
    while (this.#records.size > this.#max) this.#records.delete(this.#records.keys().next().value!)
  }

  async destroy(id: string): Promise<void> {
    this.#records.delete(id)
  }
}

const keyOf = (id: string) => `courier:session:${id}`

/**
 * Sessions in a Redis of their own (SESSION_REDIS_URL: persistent, `noeviction`, docs/sessions.md), shared by the
 * fleet, each expiring with its cookie. Losing Redis signs nobody in or out by mistake: a session that cannot be read
 * is no session for that request (its page shows the signed-out view, never a 5xx), logged once per outage; a
 * session that cannot be written or ended fails its request with 503 and Retry-After (COURIER_ERR_SESSION_STORE_DOWN).
 */
export class RedisSessionStore implements SessionStore {
  readonly #redis: Redis
  readonly #log: FastifyBaseLogger
  #down = false

  constructor(redis: Redis, log: FastifyBaseLogger) {
    this.#redis = redis
    this.#log = log
  }

  async #answered<T>(action: string, work: Promise<T>): Promise<T> {
    try {
      const result = await withTimeOut(
        work,
        limits.storeTimeoutMs,
        () => new Error(`no answer in ${limits.storeTimeoutMs} ms`),
      )
      if (this.#down) this.#log.info('session store available again')
      this.#down = false
      return result
    } catch (error) {
      if (!this.#down) this.#log.error({ err: error, action }, 'session store unavailable')
      this.#down = true
      throw new errors.SessionStoreDown(error instanceof Error ? error.message : String(error))
    }
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    try {
      const text = await this.#answered('read', this.#redis.get(keyOf(id)))
      return text ? (JSON.parse(text) as SessionRecord) : undefined
    } catch {
      return undefined
    }
  }

  async set(id: string, record: SessionRecord): Promise<void> {
    const ttlMs = Math.max(1, record.expiresAt - Date.now())
    await this.#answered('write', this.#redis.set(keyOf(id), JSON.stringify(record), 'PX', ttlMs))
  }

  async destroy(id: string): Promise<void> {
    await this.#answered('end', this.#redis.del(keyOf(id)))
  }
}
