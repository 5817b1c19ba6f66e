import { randomUUID } from 'node:crypto'
import { revalidation } from '../../config/content.ts'
import type { SharedRedis } from './redis.ts'

/** What a revalidation names (POST /api/revalidate's body). */
export interface RevalidationMessage {
  paths: string[]
  tags: string[]
}

/** What an instance applies: a revalidation, or every kept page when it cannot know what it missed. */
export type Revalidation = RevalidationMessage | 'everything'

/**
 * The kept pages a revalidation reaches (src/pages/page-versions.ts): the revalidate route, the Redis channel and
 * the workers' messages all apply revalidations to it.
 */
export interface RevalidatedPages {
  /** Another instance's revalidation: requests for a named page wait for its one regeneration. */
  revalidate(revalidation: Revalidation): unknown
  /** One this instance takes: resolves once the pages it keeps are regenerated (kept versions served meanwhile). */
  regenerateNow(message: RevalidationMessage): Promise<unknown>
}

/** A revalidation as the fleet keeps it: numbered in order, with the instance that took the call. */
export interface LoggedRevalidation extends RevalidationMessage {
  seq: number
  from: string
  /** The revalidation state's epoch it was numbered in (see newestRevalidation). */
  epoch: string
}

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
 * the number and the entry's text, which `announceRevalidation` publishes. The JSON gets its number and epoch by
 * text, not through cjson, which would write an empty list as `{}`.
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

export async function appendRevalidation(
  redis: SharedRedis,
  message: RevalidationMessage & { from: string },
): Promise<{ seq: number; text: string }> {
  const keys = revalidationKeys(redis)
  const json = JSON.stringify({ paths: message.paths, tags: message.tags, from: message.from })
  const [seq, text] = (await redis.client.eval(
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

export interface RevalidationState {
  /** The newest revalidation's number; 0 when there has been none. */
  seq: number
  epoch: string
  /** Instances whose heartbeat is recent (this one included). */
  alive: number
}

/** The heartbeat of instance `self`, and the state every instance compares with what it applied. */
export async function checkRevalidations(redis: SharedRedis, self: string): Promise<RevalidationState> {
  const keys = revalidationKeys(redis)
  const [seq, epoch, alive] = (await redis.client.eval(
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

/** Says that instance `self` applied revalidation `seq` (kept a minute: the call that waits for it waits 1 s). */
export async function acknowledgeRevalidation(redis: SharedRedis, seq: number, self: string): Promise<void> {
  const key = revalidationKeys(redis).acks(seq)
  await redis.client.multi().sadd(key, self).pexpire(key, revalidation.ackTtlMs).exec()
}

/** How many instances applied revalidation `seq`. */
export async function acknowledgements(redis: SharedRedis, seq: number): Promise<number> {
  return redis.client.scard(revalidationKeys(redis).acks(seq))
}

/** Publishes a logged revalidation to every instance: how many were listening. */
export async function announceRevalidation(redis: SharedRedis, text: string): Promise<number> {
  return redis.client.publish(revalidationKeys(redis).channel, text)
}

export function parseSeq(value: string | null | undefined): number {
  const seq = Number(value ?? 0)
  return Number.isSafeInteger(seq) && seq >= 0 ? seq : 0
}

/** A log entry or a published message, or undefined when it is not one Courier wrote. */
export function readLogged(text: string): LoggedRevalidation | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null) return undefined
  const { seq, paths, tags, from, epoch } = value as Record<string, unknown>
  const strings = (list: unknown): list is string[] =>
    Array.isArray(list) && list.every((item) => typeof item === 'string')
  if (!Number.isSafeInteger(seq) || typeof from !== 'string' || typeof epoch !== 'string') return undefined
  if (!strings(paths) || !strings(tags)) return undefined
  return { seq: seq as number, paths, tags, from, epoch }
}

/** Revalidations that may have been logged between reading the newest number and reading the log. */
const lateArrivals = 64

/**
 * The revalidations numbered after `since` up to `upTo`, oldest first; `gone` when the log no longer reaches back
 * that far (trimmed, or Redis lost it): the caller must then assume any page may have been named.
 */
export async function revalidationsSince(
  redis: SharedRedis,
  since: number,
  upTo: number,
): Promise<LoggedRevalidation[] | 'gone'> {
  if (upTo <= since) return []
  if (upTo - since > revalidation.logLength) return 'gone'
  // Newest first: revalidations numbered after `upTo` may have joined since it was read, so a few more are read.
  const count = Math.min(upTo - since + lateArrivals, revalidation.logLength)
  const texts = await redis.client.lrange(revalidationKeys(redis).log, 0, count - 1)
  const entries = texts
    .map(readLogged)
    .filter((entry): entry is LoggedRevalidation => entry !== undefined && entry.seq > since && entry.seq <= upTo)
    .sort((a, b) => a.seq - b.seq)
  // Every number from since + 1 to upTo must be there.
  if (entries.length !== upTo - since || entries[0]!.seq !== since + 1) return 'gone'
  return entries
}
