import { Redis } from 'ioredis'
import type { FastifyBaseLogger } from 'fastify'
import { sharedState, type SharedStateLimits } from '../../config/shared-state.ts'

export interface SharedRedisOptions {
  url: string
  log: FastifyBaseLogger
  /** Overrides of config/shared-state.ts (tests). */
  limits?: Partial<SharedStateLimits>
}

/**
 * Courier's one Redis connection per process. Commands never queue while the connection is down (they fail at once)
 * and never wait longer than the command time-out: callers treat any failure as "no shared state this time" and go
 * on locally. The connection is retried forever in the background. One warn line when it is lost (or cannot be made
 * at start), one info line when it is back.
 */
export class SharedRedis {
  readonly client: Redis
  readonly keyPrefix: string
  #up = false
  #lostReported = false
  readonly #log: FastifyBaseLogger

  constructor(options: SharedRedisOptions) {
    const limits = { ...sharedState, ...options.limits }
    this.#log = options.log
    this.keyPrefix = limits.keyPrefix
    this.client = new Redis(options.url, {
      // A command while disconnected fails at once instead of waiting in a queue for a connection.
      enableOfflineQueue: false,
      // A command in flight when the connection drops fails at once too, instead of being retried after reconnecting.
      maxRetriesPerRequest: 0,
      commandTimeout: limits.commandTimeoutMs,
      connectTimeout: limits.connectTimeoutMs,
      retryStrategy: (attempt) => Math.min(attempt * limits.reconnectBaseDelayMs, limits.reconnectMaxDelayMs),
      lazyConnect: false,
    })
    const where = safeUrl(options.url)
    this.client.on('ready', () => {
      const wasLost = this.#lostReported
      this.#up = true
      this.#lostReported = false
      if (wasLost) this.#log.info({ redis: where }, 'redis connection restored: sharing state again')
      else this.#log.info({ redis: where }, 'redis connected: sharing state')
    })
    this.client.on('error', (error: Error) => {
      if (!this.#lostReported && !this.#up) {
        // Never connected yet: say so once; later attempts fail quietly until it works.
        this.#lostReported = true
        this.#log.warn({ err: error, redis: where }, 'redis connection lost: serving with local state')
      } else {
        this.#log.debug({ err: error, redis: where }, 'redis error')
      }
    })
    this.client.on('close', () => {
      if (!this.#up) return
      this.#up = false
      if (this.#lostReported) return
      this.#lostReported = true
      this.#log.warn({ redis: where }, 'redis connection lost: serving with local state')
    })
  }

  /** Whether the connection is ready now: when not, callers skip Redis without sending a command. */
  get up(): boolean {
    return this.#up
  }

  /** Logs a failed command at debug level (the lost/back lines say what matters). */
  commandFailed(error: unknown, command: string): void {
    this.#log.debug({ err: error, command }, 'redis command failed: going on with local state')
  }

  async close(): Promise<void> {
    this.#up = false
    this.#lostReported = true // no "lost" line for our own close
    try {
      await this.client.quit()
    } catch {
      this.client.disconnect()
    }
  }
}

/** The URL as logged: `[Redacted]` in place of its password, as in every other log line (URL's own setter would
 * percent-encode the brackets); its query (ioredis options) left out. */
function safeUrl(url: string): string {
  if (!URL.canParse(url)) return '[unparsable]'
  const { protocol, username, password, host, pathname } = new URL(url)
  const userInfo = username || password ? `${username}${password ? ':[Redacted]' : ''}@` : ''
  return `${protocol}//${userInfo}${host}${pathname === '/' ? '' : pathname}`
}
