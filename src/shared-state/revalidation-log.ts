import { revalidation } from '../../config/content.ts'
import type { SharedRedis } from './redis.ts'

/** What a revalidation names (POST /api/revalidate's body). */
export interface RevalidationMessage {
  paths: string[]
  tags: string[]
}

/** A revalidation as the fleet keeps it: numbered in order, with the instance that took the call. */
export interface LoggedRevalidation extends RevalidationMessage {
  seq: number
  from: string
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
  }
}

/**
 * Numbers a revalidation and keeps it in the log (trimmed to its length), in one step: no instance can see the
 * number without the entry. Answers the number and the entry's text, which `announceRevalidation` publishes. The
 * JSON gets its number by text, not through cjson, which would write an empty list as `{}`.
 */
const appendScript = `
local seq = redis.call('INCR', KEYS[1])
local text = '{"seq":' .. seq .. ',' .. string.sub(ARGV[1], 2)
redis.call('LPUSH', KEYS[2], text)
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[2]) - 1)
return { seq, text }`

export async function appendRevalidation(redis: SharedRedis, message: RevalidationMessage & { from: string }): Promise<{ seq: number; text: string }> {
  const keys = revalidationKeys(redis)
  const json = JSON.stringify({ paths: message.paths, tags: message.tags, from: message.from })
  const [seq, text] = (await redis.client.eval(appendScript, 2, keys.seq, keys.log, json, revalidation.logLength)) as [number, string]
  return { seq, text }
}

/** Publishes a logged revalidation to every instance: how many were listening. */
export async function announceRevalidation(redis: SharedRedis, text: string): Promise<number> {
  return redis.client.publish(revalidationKeys(redis).channel, text)
}

/** The newest revalidation's number; 0 when there has been none. */
export async function newestRevalidation(redis: SharedRedis): Promise<number> {
  const value = await redis.client.get(revalidationKeys(redis).seq)
  return parseSeq(value)
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
  const { seq, paths, tags, from } = value as Record<string, unknown>
  const strings = (list: unknown): list is string[] => Array.isArray(list) && list.every((item) => typeof item === 'string')
  if (!Number.isSafeInteger(seq) || typeof from !== 'string' || !strings(paths) || !strings(tags)) return undefined
  return { seq: seq as number, paths, tags, from }
}

/** Revalidations that may have been logged between reading the newest number and reading the log. */
const lateArrivals = 64

/**
 * The revalidations numbered after `since` up to `upTo`, oldest first; `gone` when the log no longer reaches back
 * that far (trimmed, or Redis lost it): the caller must then assume any page may have been named.
 */
export async function revalidationsSince(redis: SharedRedis, since: number, upTo: number): Promise<LoggedRevalidation[] | 'gone'> {
  if (upTo <= since) return []
  if (upTo - since > revalidation.logLength) return 'gone'
  // Newest first: revalidations numbered after `upTo` may have joined since it was read, so a few more are read.
  const texts = await redis.client.lrange(revalidationKeys(redis).log, 0, Math.min(upTo - since + lateArrivals, revalidation.logLength) - 1)
  const entries = texts
    .map(readLogged)
    .filter((entry): entry is LoggedRevalidation => entry !== undefined && entry.seq > since && entry.seq <= upTo)
    .sort((a, b) => a.seq - b.seq)
  // Every number from since + 1 to upTo must be there.
  if (entries.length !== upTo - since || entries[0]!.seq !== since + 1) return 'gone'
  return entries
}
