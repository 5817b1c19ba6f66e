import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { FastifyBaseLogger } from 'fastify'
import type { SharedRedis } from './redis.ts'

/** What a revalidation names (POST /api/revalidate's body). */
export interface RevalidationMessage {
  paths: string[]
  tags: string[]
}

/** The channel every instance listens on: one Redis can serve several sites by their key prefix. */
function channelOf(redis: SharedRedis): string {
  return `${redis.keyPrefix}revalidate`
}

function isMessage(value: unknown): value is RevalidationMessage & { from: string } {
  if (typeof value !== 'object' || value === null) return false
  const { paths, tags, from } = value as Record<string, unknown>
  const strings = (list: unknown) => Array.isArray(list) && list.every((item) => typeof item === 'string')
  return typeof from === 'string' && strings(paths) && strings(tags)
}

/**
 * Revalidations told to every instance through Redis pub/sub (REDIS_URL; docs/content.md "Revalidation on demand").
 * The instance that takes a call applies it at once, then publishes it; every other instance applies it as it
 * arrives. PUBLISH answers how many instances were listening: the number the call's 200 reports. Redis down or the
 * publish failing: the call applies here only, with a warn line, and never fails. A subscription of its own (a Redis
 * connection in subscriber mode serves nothing else), resubscribed by ioredis after a reconnection.
 */
export class RevalidationChannel {
  readonly #redis: SharedRedis
  readonly #apply: (message: RevalidationMessage) => void
  readonly #log: FastifyBaseLogger
  readonly #subscriber: Redis
  /** This instance's id in the messages it publishes: it has applied them already. */
  readonly #self = randomUUID()

  constructor(redis: SharedRedis, apply: (message: RevalidationMessage) => void, log: FastifyBaseLogger) {
    this.#redis = redis
    this.#apply = apply
    this.#log = log
    // Queued while connecting (the subscription waits for the connection); the shared client's options otherwise.
    this.#subscriber = redis.client.duplicate({ enableOfflineQueue: true })
    this.#subscriber.on('error', (error: Error) => this.#log.debug({ err: error }, 'revalidation subscriber error'))
    this.#subscriber.on('message', (_channel: string, text: string) => this.#received(text))
    this.#subscriber.subscribe(channelOf(redis)).catch((error: unknown) => {
      this.#log.warn({ err: error }, 'revalidation channel not subscribed: this instance hears no other instance')
    })
  }

  /** Applies here, then tells the other instances: how many instances have been told, this one included. */
  async tell(message: RevalidationMessage): Promise<{ instances: number }> {
    this.#apply(message)
    if (!this.#redis.up) {
      this.#log.warn(message, 'revalidation applied to this instance only: redis is not connected')
      return { instances: 1 }
    }
    try {
      const listening = await this.#redis.client.publish(channelOf(this.#redis), JSON.stringify({ ...message, from: this.#self }))
      // This instance's own subscriber is among the listeners, or is reconnecting: it has applied the call either way.
      return { instances: Math.max(1, listening) }
    } catch (error) {
      this.#log.warn({ err: error, ...message }, 'revalidation applied to this instance only: redis publish failed')
      return { instances: 1 }
    }
  }

  #received(text: string) {
    let message: unknown
    try {
      message = JSON.parse(text)
    } catch (error) {
      return this.#log.warn({ err: error }, 'revalidation message unreadable: ignored')
    }
    if (!isMessage(message)) return this.#log.warn({}, 'revalidation message of another shape: ignored')
    if (message.from === this.#self) return
    this.#log.debug({ paths: message.paths, tags: message.tags }, 'revalidation heard')
    this.#apply({ paths: message.paths, tags: message.tags })
  }

  async close(): Promise<void> {
    this.#subscriber.disconnect()
  }
}
