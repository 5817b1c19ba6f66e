import cluster from 'node:cluster'
import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { revalidation } from '../../config/content.ts'
import type { RevalidatedPages, RevalidationMessage } from '../pages/revalidation.ts'

/** The messages between the workers of `WEB_CONCURRENCY` and their primary about revalidations. */
export type ClusterRevalidationMessage =
  /** worker -> primary: tell every other worker. */
  | { courier: 'revalidate'; id: string; paths: string[]; tags: string[] }
  /** primary -> every other worker: apply it. */
  | { courier: 'revalidate-apply'; paths: string[]; tags: string[] }
  /** primary -> the worker that asked: how many workers have been told, itself included. */
  | { courier: 'revalidate-told'; id: string; instances: number }

/** A worker as the primary sees it (node:cluster's Worker). */
export interface ClusterWorker {
  isConnected(): boolean
  send(message: ClusterRevalidationMessage): boolean
}

/** The primary's view of its workers: node:cluster in the primary (tests pass another). */
export interface ClusterPrimary {
  readonly workers?: NodeJS.Dict<ClusterWorker> | undefined
  on(event: 'message', listener: (from: ClusterWorker, message: unknown) => void): unknown
}

/** A worker's line to its primary: the process's IPC channel in a worker (tests pass another). */
export interface PrimaryLine {
  send(message: ClusterRevalidationMessage): void
  on(event: 'message', listener: (message: unknown) => void): unknown
  off(event: 'message', listener: (message: unknown) => void): unknown
}

const processLine: PrimaryLine = {
  send: (message) => process.send?.(message),
  on: (event, listener) => process.on(event, listener),
  off: (event, listener) => process.off(event, listener),
}

function isClusterMessage(value: unknown): value is ClusterRevalidationMessage {
  if (typeof value !== 'object' || value === null) return false
  const kind = (value as { courier?: unknown }).courier
  return kind === 'revalidate' || kind === 'revalidate-apply' || kind === 'revalidate-told'
}

/**
 * The primary's side (src/cluster.ts): passes a worker's revalidation to every other worker and answers how many
 * workers have it. IPC delivers in order, so a worker told after another has it before its next message.
 */
export function relayRevalidations(primary: ClusterPrimary = cluster): void {
  primary.on('message', (from: ClusterWorker, message: unknown) => {
    if (!isClusterMessage(message) || message.courier !== 'revalidate') return
    const connected = (worker: ClusterWorker | undefined): worker is ClusterWorker =>
      worker !== undefined && worker.isConnected()
    const workers = Object.values(primary.workers ?? {}).filter(connected)
    const apply: ClusterRevalidationMessage = { courier: 'revalidate-apply', paths: message.paths, tags: message.tags }
    for (const worker of workers) if (worker !== from) worker.send(apply)
    const told: ClusterRevalidationMessage = { courier: 'revalidate-told', id: message.id, instances: workers.length }
    from.send(told)
  })
}

/**
 * A worker's side, without Redis (docs/content.md "Across the fleet"): a revalidation this worker takes is applied
 * here (its pages regenerated) and sent to the primary, which passes it on to every other worker; the call's 200
 * waits for the primary's answer (at most config/content.ts clusterAckTimeoutMs, then it reports this worker alone,
 * with a warn line).
 */
export interface ClusterRevalidationOptions {
  /** The pages revalidations apply to: a sibling's as it arrives, this worker's own before the primary is told. */
  pages: RevalidatedPages
  log: FastifyBaseLogger
  /** The line to the primary: this process's IPC channel unless given. */
  line?: PrimaryLine
}

export class ClusterRevalidation {
  readonly #pages: RevalidatedPages
  readonly #log: FastifyBaseLogger
  readonly #line: PrimaryLine
  readonly #waiting = new Map<string, (instances: number) => void>()
  readonly #onMessage = (message: unknown) => {
    if (!isClusterMessage(message)) return
    if (message.courier === 'revalidate-apply') this.#pages.revalidate({ paths: message.paths, tags: message.tags })
    else if (message.courier === 'revalidate-told') this.#waiting.get(message.id)?.(message.instances)
  }

  constructor(options: ClusterRevalidationOptions) {
    this.#pages = options.pages
    this.#log = options.log
    this.#line = options.line ?? processLine
    this.#line.on('message', this.#onMessage)
  }

  /** Whether this process is a worker with a primary to tell. */
  static available(): boolean {
    return cluster.isWorker && typeof process.send === 'function'
  }

  async tell(message: RevalidationMessage): Promise<{ instances: number }> {
    this.#pages.revalidate(message)
    const id = randomUUID()
    const instances = await new Promise<number>((resolve) => {
      const timer = setTimeout(() => resolve(0), revalidation.clusterAckTimeoutMs)
      this.#waiting.set(id, (count) => {
        clearTimeout(timer)
        resolve(count)
      })
      try {
        const told: ClusterRevalidationMessage = { courier: 'revalidate', id, paths: message.paths, tags: message.tags }
        this.#line.send(told)
      } catch {
        // The channel to the primary is gone (the primary exited): this worker alone, said below.
        clearTimeout(timer)
        resolve(0)
      }
    })
    this.#waiting.delete(id)
    if (instances === 0) this.#log.warn(message, 'revalidation applied to this worker only: the primary did not answer')
    return { instances: Math.max(1, instances) }
  }

  close(): void {
    this.#line.off('message', this.#onMessage)
  }
}
