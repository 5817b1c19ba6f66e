import type { RevalidationMessage } from '../pages/revalidation.ts'

/** A revalidation as the fleet keeps it: numbered in order, with the instance that took the call. */
export interface LoggedRevalidation extends RevalidationMessage {
  seq: number
  from: string
  /** The revalidation state's epoch it was numbered in (a Redis that lost its state has another). */
  epoch: string
}

export interface RevalidationState {
  /** The newest revalidation's number; 0 when there has been none. */
  seq: number
  epoch: string
  /** Instances whose heartbeat is recent (this one included). */
  alive: number
}

/**
 * The fleet's revalidation log, as one instance reaches it: Redis with REDIS_URL
 * (src/shared-state/redis-revalidation-log.ts), memory in the unit tests (test/helpers/memory-revalidation-log.ts).
 * What an instance does with it is src/shared-state/revalidation-channel.ts. Every method but `listen` and `close`
 * rejects when the log cannot be reached.
 */
export interface FleetRevalidationLog {
  /** Whether the log can be reached now: when not, an instance applies what it takes alone, sending nothing. */
  readonly up: boolean
  /** Says a failed command (the connection's own lines say that it is down). */
  failed(error: unknown, command: string): void
  /** Numbers a revalidation and keeps it, in one step (the epoch made if there is none): its number and text. */
  append(message: RevalidationMessage & { from: string }): Promise<{ seq: number; text: string }>
  /** Instance `self`'s heartbeat, and the newest number, the epoch and how many instances are alive. */
  check(self: string): Promise<RevalidationState>
  /** Says that instance `self` applied revalidation `seq`. */
  acknowledge(seq: number, self: string): Promise<void>
  /** How many instances applied revalidation `seq`, and how many are alive (heartbeats now recent), read together. */
  acknowledgements(seq: number): Promise<{ instances: number; alive: number }>
  /** Tells every listening instance a logged revalidation's text: how many were listening. */
  announce(text: string): Promise<number>
  /** The revalidations numbered after `since` up to `upTo`, oldest first; `gone` when the log does not reach back. */
  since(since: number, upTo: number): Promise<LoggedRevalidation[] | 'gone'>
  /** Hears every announced text until `close`; `listening` runs each time the subscription is made (at start, and
   * after every reconnection: what was announced while it was not listening is caught up then). */
  listen(heard: (text: string) => void, listening: () => void): void
  close(): void
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

/**
 * The revalidations numbered after `since` up to `upTo` among the log's newest entries `texts`, oldest first; `gone`
 * when one is missing (trimmed, or the log lost): the caller must then assume any page may have been named.
 */
export function revalidationsBetween(texts: string[], since: number, upTo: number): LoggedRevalidation[] | 'gone' {
  if (upTo <= since) return []
  const entries = texts
    .map(readLogged)
    .filter((entry): entry is LoggedRevalidation => entry !== undefined && entry.seq > since && entry.seq <= upTo)
    .sort((a, b) => a.seq - b.seq)
  // Every number from since + 1 to upTo must be there.
  if (entries.length !== upTo - since || entries[0]!.seq !== since + 1) return 'gone'
  return entries
}
