import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { FastifyBaseLogger } from 'fastify'
import { revalidation } from '../../config/content.ts'
import type { SharedRedis } from './redis.ts'
import {
  parseSeq,
  revalidationsBetween,
  type FleetRevalidationLog,
  type LoggedRevalidation,
  type RevalidationState,
} from './revalidation-log.ts'
import type { RevalidationMessage } from '../pages/revalidation.ts'

/** The Redis keys of the revalidation log: one Redis can serve several sites by their key prefix. */
export function revalidationKeys(redis: SharedRedis) {
  return {
    /** The number of the newest revalidation (INCR): the version every instance checks. */
    seq: `${redis.keyPrefix}revalidate-seq`,
    /** The newest revalidations, newest first, each `{"seq":N,...}`. */
    log: `${redis.keyPrefix}revalidate-log`,
    /** The pub/sub channel they are announced on. */
    channel: `${redis.keyPrefix}revalidate`,
    /** A random id made when the state above is first written: a Redis that lost it (restarted empty, flushed,
     * evicted) has another, and every instance then knows its numbers say nothing of what it applied. */
    epoch: `${redis.keyPrefix}revalidate-epoch`,
    /** Instances alive: a sorted set of instance ids by the time of their last heartbeat (Redis's clock). */
    instances: `${redis.keyPrefix}instances`,
    /** The instances that applied revalidation N. */
    acks: (seq: number) => `${redis.keyPrefix}revalidate-ack:${seq}`,
  }
}

/**
 * Numbers a revalidation and keeps it in the log (trimmed to its length), in one step: no instance can see the
 * number without the entry. The epoch is made if the state has none. Every key gets its time to live again. Answers
 * the number and the entry's text, which `announce` publishes. The JSON gets its number and epoch by text, not
 * through cjson, which would write an empty list as `{}`.
 */
const appendScript = `
redis.call('SET', KEYS[3], ARGV[3], 'NX')
local epoch = redis.call('GET', KEYS[3])
local seq = redis.call('INCR', KEYS[1])
local text = '{"seq":' .. seq .. ',"epoch":' .. cjson.encode(epoch) .. ',' .. string.sub(ARGV[1], 2)
redis.call('LPUSH', KEYS[2], text)
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[2]) - 1)
for index = 1, 3 do redis.call('PEXPIRE', KEYS[index], ARGV[4]) end
return { seq, text }`

/**
 * An instance's check, every second: its heartbeat (the instances set, by Redis's clock, the stale ones dropped),
 * the epoch made if there is none, every key's time to live renewed while any instance runs. Answers the newest
 * number, the epoch and how many instances are alive.
 */
const checkScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZADD', KEYS[4], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now - tonumber(ARGV[3]))
redis.call('PEXPIRE', KEYS[4], ARGV[3])
redis.call('SET', KEYS[3], ARGV[2], 'NX')
for index = 1, 3 do redis.call('PEXPIRE', KEYS[index], ARGV[4]) end
return { redis.call('GET', KEYS[1]) or '0', redis.call('GET', KEYS[3]), redis.call('ZCARD', KEYS[4]) }`

/**
 * How many instances applied a revalidation, and how many are alive now (a heartbeat within the heartbeat's time to
 * live, by Redis's clock), in one round trip: the call that waits for the first reads both at every poll.
 */
const acknowledgementsScript = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local alive = redis.call('ZCOUNT', KEYS[2], '(' .. (now - tonumber(ARGV[1])), '+inf')
return { redis.call('SCARD', KEYS[1]), alive }`

/** Revalidations that may have been logged between reading the newest number and reading the log. */
const lateArrivals = 64

/** The revalidations numbered after `since` up to `upTo`, oldest first; `gone` when the log no longer reaches back. */
export async function revalidationsSince(
  redis: SharedRedis,
  since: number,
  upTo: number,
): Promise<LoggedRevalidation[] | 'gone'> {
  if (upTo <= since) return []
  if (upTo - since > revalidation.logLength) return 'gone'
  // Newest first: revalidations numbered after `upTo` may have joined since it was read, so a few more are read.
  const count = Math.min(upTo - since + lateArrivals, revalidation.logLength)
  return revalidationsBetween(await redis.client.lrange(revalidationKeys(redis).log, 0, count - 1), since, upTo)
}

/**
 * The revalidation log in Redis (docs/content.md "What Redis holds"), through the instance's shared connection, and
 * a subscription of its own (a Redis connection in subscriber mode serves nothing else), made again each time that
 * connection is ready.
 */
export class RedisRevalidationLog implements FleetRevalidationLog {
  readonly #redis: SharedRedis
  readonly #log: FastifyBaseLogger
  readonly #keys: ReturnType<typeof revalidationKeys>
  #subscriber: Redis | undefined

  constructor(redis: SharedRedis, log: FastifyBaseLogger) {
    this.#redis = redis
    this.#log = log
    this.#keys = revalidationKeys(redis)
  }

  get up(): boolean {
    return this.#redis.up
  }

  failed(error: unknown, command: string): void {
    this.#redis.commandFailed(error, command)
  }

  async append(message: RevalidationMessage & { from: string }): Promise<{ seq: number; text: string }> {
    const keys = this.#keys
    const json = JSON.stringify({ paths: message.paths, tags: message.tags, from: message.from })
    const [seq, text] = (await this.#redis.client.eval(
      appendScript,
      3,
      keys.seq,
      keys.log,
      keys.epoch,
      json,
      revalidation.logLength,
      randomUUID(),
      revalidation.stateTtlMs,
    )) as [number, string]
    return { seq, text }
  }

  async check(self: string): Promise<RevalidationState> {
    const keys = this.#keys
    const [seq, epoch, alive] = (await this.#redis.client.eval(
      checkScript,
      4,
      keys.seq,
      keys.log,
      keys.epoch,
      keys.instances,
      self,
      randomUUID(),
      revalidation.heartbeatTtlMs,
      revalidation.stateTtlMs,
    )) as [string, string, number]
    return { seq: parseSeq(seq), epoch, alive }
  }

  /** Kept a minute: the call that waits for it waits 1 s. */
  async acknowledge(seq: number, self: string): Promise<void> {
    const key = this.#keys.acks(seq)
    await this.#redis.client.multi().sadd(key, self).pexpire(key, revalidation.ackTtlMs).exec()
  }

  async acknowledgements(seq: number): Promise<{ instances: number; alive: number }> {
    const { acks, instances: heartbeats } = this.#keys
    const [instances, alive] = (await this.#redis.client.eval(
      acknowledgementsScript,
      2,
      acks(seq),
      heartbeats,
      revalidation.heartbeatTtlMs,
    )) as [number, number]
    return { instances, alive }
  }

  announce(text: string): Promise<number> {
    return this.#redis.client.publish(this.#keys.channel, text)
  }

  since(since: number, upTo: number): Promise<LoggedRevalidation[] | 'gone'> {
    return revalidationsSince(this.#redis, since, upTo)
  }

  listen(heard: (text: string) => void, listening: () => void): void {
    // Subscribed at every `ready` (at start, after each reconnection) here rather than by ioredis (autoResubscribe),
    // so that `listening` runs once the subscription is made.
    const subscriber = this.#redis.client.duplicate({ autoResubscribe: false })
    this.#subscriber = subscriber
    subscriber.on('error', (error: Error) => this.#log.debug({ err: error }, 'revalidation subscriber error'))
    subscriber.on('message', (_channel: string, text: string) => heard(text))
    subscriber.on('ready', () => {
      subscriber.subscribe(this.#keys.channel).then(listening, (error: unknown) => {
        this.#log.warn({ err: error }, 'revalidation channel not subscribed: this instance hears no other instance')
      })
    })
  }

  close(): void {
    this.#subscriber?.disconnect()
  }
}
