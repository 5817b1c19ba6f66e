import type { FastifyBaseLogger, Session } from 'fastify'
import type { Redis } from 'ioredis'
import { sessions as limits } from '../config/sessions.ts'
import { errors } from './errors.ts'
import { withTimeOut } from './toolbox/time-out.ts'

/** What @fastify/session asks of a store (its `SessionStore`), in its callback style. */
export interface CallbackSessionStore {
  get(sessionId: string, callback: (error: Error | null, session?: Session | null) => void): void
  set(sessionId: string, session: Session, callback: (error?: Error | null) => void): void
  destroy(sessionId: string, callback: (error?: Error | null) => void): void
}

/** When a session stored now stops being valid, from its cookie's expiry (else the configured lifetime). */
function expiresAtOf(session: Session): number {
  const cookie = (session as { cookie?: { expires?: string | Date | null } }).cookie
  const expires = cookie?.expires ? new Date(cookie.expires).getTime() : Number.NaN
  return Number.isFinite(expires) ? expires : Date.now() + limits.maxAgeMs
}

/**
 * Sessions in this process (no SESSION_REDIS_URL): bounded by count, the oldest going first, and each dropped once
 * past its expiry. They end with the process, and each instance has its own: a fleet uses Redis.
 */
export class MemorySessionStore implements CallbackSessionStore {
  readonly #sessions = new Map<string, { session: Session; expiresAt: number }>()
  readonly #max: number

  constructor(max = limits.memoryMaxSessions) {
    this.#max = max
  }

  get size(): number {
    return this.#sessions.size
  }

  get(sessionId: string, callback: (error: Error | null, session?: Session | null) => void): void {
    const kept = this.#sessions.get(sessionId)
    if (kept && kept.expiresAt <= Date.now()) this.#sessions.delete(sessionId)
    callback(null, kept && kept.expiresAt > Date.now() ? structuredClone(kept.session) : null)
  }

  set(sessionId: string, session: Session, callback: (error?: Error | null) => void): void {
    this.#sessions.delete(sessionId)
    this.#sessions.set(sessionId, { session: structuredClone(session), expiresAt: expiresAtOf(session) })
    while (this.#sessions.size > this.#max) this.#sessions.delete(this.#sessions.keys().next().value!)
    callback(null)
  }

  destroy(sessionId: string, callback: (error?: Error | null) => void): void {
    this.#sessions.delete(sessionId)
    callback(null)
  }
}

const keyOf = (sessionId: string) => `courier:session:${sessionId}`

/**
 * Sessions in a Redis of their own (SESSION_REDIS_URL: persistent, `noeviction`, docs/sessions.md), shared by the
 * fleet, each expiring with its cookie. Losing Redis signs nobody in or out by mistake: a session that cannot be read
 * is no session for that request (its page shows the signed-out view, never a 5xx), logged once per outage; a
 * session that cannot be written or ended fails its request with 503 and Retry-After (COURIER_ERR_SESSION_STORE_DOWN).
 */
export class RedisSessionStore implements CallbackSessionStore {
  readonly #redis: Redis
  readonly #log: FastifyBaseLogger
  #down = false

  constructor(redis: Redis, log: FastifyBaseLogger) {
    this.#redis = redis
    this.#log = log
  }

  #answered<T>(work: Promise<T>): Promise<T> {
    return withTimeOut(work, limits.storeTimeoutMs, () => new Error(`no answer in ${limits.storeTimeoutMs} ms`))
  }

  #failed(error: unknown, action: string): Error {
    if (!this.#down) this.#log.error({ err: error, action }, 'session store unavailable')
    this.#down = true
    return new errors.SessionStoreDown(error instanceof Error ? error.message : String(error))
  }

  #recovered(): void {
    if (this.#down) this.#log.info('session store available again')
    this.#down = false
  }

  get(sessionId: string, callback: (error: Error | null, session?: Session | null) => void): void {
    this.#answered(this.#redis.get(keyOf(sessionId))).then(
      (text) => {
        this.#recovered()
        callback(null, text ? (JSON.parse(text) as Session) : null)
      },
      (error: unknown) => {
        this.#failed(error, 'read')
        callback(null, null)
      },
    )
  }

  set(sessionId: string, session: Session, callback: (error?: Error | null) => void): void {
    const ttlMs = Math.max(1, expiresAtOf(session) - Date.now())
    this.#answered(this.#redis.set(keyOf(sessionId), JSON.stringify(session), 'PX', ttlMs)).then(
      () => {
        this.#recovered()
        callback(null)
      },
      (error: unknown) => callback(this.#failed(error, 'write')),
    )
  }

  destroy(sessionId: string, callback: (error?: Error | null) => void): void {
    this.#answered(this.#redis.del(keyOf(sessionId))).then(
      () => callback(null),
      (error: unknown) => callback(this.#failed(error, 'end')),
    )
  }
}
