import { randomUUID } from 'node:crypto'
import { revalidation } from '../../config/content.ts'
import {
  revalidationsBetween,
  type FleetRevalidationLog,
  type LoggedRevalidation,
  type RevalidationState,
} from '../../src/shared-state/revalidation-log.ts'
import type { RevalidationMessage } from '../../src/pages/revalidation.ts'

/**
 * What Redis keeps of the fleet's revalidations (src/shared-state/redis-revalidation-log.ts), in memory: one for
 * instances that share one process (the unit tests of src/shared-state/revalidation-channel.ts), each reaching it
 * through a `MemoryRevalidationLog` of its own. `restart` empties it, as a Redis restarted without persistence is.
 */
export class MemoryRevalidationState {
  readonly logLength: number
  readonly now: () => number
  seq = 0
  epoch: string | undefined
  /** The log's entries, newest first. */
  texts: string[] = []
  /** Instance id -> time of its last heartbeat. */
  readonly heartbeats = new Map<string, number>()
  readonly acks = new Map<number, Set<string>>()
  readonly connections = new Set<MemoryRevalidationLog>()

  constructor(options: { logLength?: number; now?: () => number } = {}) {
    this.logLength = options.logLength ?? revalidation.logLength
    this.now = options.now ?? Date.now
  }

  /** The instances whose heartbeat is recent. */
  alive(): number {
    const now = this.now()
    for (const [self, at] of this.heartbeats) if (at <= now - revalidation.heartbeatTtlMs) this.heartbeats.delete(self)
    return this.heartbeats.size
  }

  /** Everything lost, and every connection dropped (each comes back by `reconnect`). */
  restart(): void {
    this.seq = 0
    this.epoch = undefined
    this.texts = []
    this.heartbeats.clear()
    this.acks.clear()
    for (const connection of this.connections) connection.disconnect()
  }
}

/**
 * One instance's connection to a `MemoryRevalidationState`: every command fails while it is disconnected (as the
 * shared Redis connection's do, at once), and a text announced reaches its listener a turn of the event loop later.
 */
export class MemoryRevalidationLog implements FleetRevalidationLog {
  readonly #state: MemoryRevalidationState
  #connected = true
  #heard: ((text: string) => void) | undefined
  #listening: (() => void) | undefined
  /** Commands said to have failed, by name. */
  readonly failures: string[] = []

  constructor(state: MemoryRevalidationState) {
    this.#state = state
    state.connections.add(this)
  }

  get up(): boolean {
    return this.#connected
  }

  disconnect(): void {
    this.#connected = false
  }

  /** Connected again, and listening again a turn of the event loop later. */
  reconnect(): void {
    this.#connected = true
    this.#subscribed()
  }

  #subscribed(): void {
    const listening = this.#listening
    if (listening) setImmediate(() => this.#connected && listening())
  }

  failed(_error: unknown, command: string): void {
    this.failures.push(command)
  }

  #reach(): MemoryRevalidationState {
    if (!this.#connected) throw new Error('Connection is closed.')
    return this.#state
  }

  async append(message: RevalidationMessage & { from: string }): Promise<{ seq: number; text: string }> {
    const state = this.#reach()
    state.epoch ??= randomUUID()
    state.seq += 1
    const entry: LoggedRevalidation = { seq: state.seq, epoch: state.epoch, ...message }
    const text = JSON.stringify(entry)
    state.texts = [text, ...state.texts].slice(0, state.logLength)
    return { seq: state.seq, text }
  }

  async check(self: string): Promise<RevalidationState> {
    const state = this.#reach()
    state.heartbeats.set(self, state.now())
    state.epoch ??= randomUUID()
    return { seq: state.seq, epoch: state.epoch, alive: state.alive() }
  }

  async acknowledge(seq: number, self: string): Promise<void> {
    const acks = this.#reach().acks
    acks.set(seq, (acks.get(seq) ?? new Set()).add(self))
  }

  async acknowledgements(seq: number): Promise<{ instances: number; alive: number }> {
    const state = this.#reach()
    return { instances: state.acks.get(seq)?.size ?? 0, alive: state.alive() }
  }

  async announce(text: string): Promise<number> {
    const listening = [...this.#reach().connections].filter((connection) => connection.#hears())
    for (const connection of listening) setImmediate(() => connection.#heard?.(text))
    return listening.length
  }

  async since(since: number, upTo: number): Promise<LoggedRevalidation[] | 'gone'> {
    return revalidationsBetween(this.#reach().texts, since, upTo)
  }

  #hears(): boolean {
    return this.#connected && this.#heard !== undefined
  }

  listen(heard: (text: string) => void, listening: () => void): void {
    this.#heard = heard
    this.#listening = listening
    if (this.#connected) this.#subscribed()
  }

  close(): void {
    this.#state.connections.delete(this)
  }
}
