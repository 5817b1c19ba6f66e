import cluster, { type Worker } from 'node:cluster'
import { randomUUID } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { revalidation } from '../../config/content.ts'
import type { RevalidatedPages, RevalidationMessage } from './revalidation-log.ts'

/** The messages between the workers of `WEB_CONCURRENCY` and their primary about revalidations. */
type ClusterRevalidationMessage =
  /** worker -> primary: tell every other worker. */
  | { courier: 'revalidate'; id: string; paths: string[]; tags: string[] }
  /** primary -> every other worker: apply it. */
  | { courier: 'revalidate-apply'; paths: string[]; tags: string[] }
  /** primary -> the worker that asked: how many workers have been told, itself included. */
  | { courier: 'revalidate-told'; id: string; instances: number }

function isClusterMessage(value: unknown): value is ClusterRevalidationMessage {
  if (typeof value !== 'object' || value === null) return false
  const kind = (value as { courier?: unknown }).courier
  return kind === 'revalidate' || kind === 'revalidate-apply' || kind === 'revalidate-told'
}

/**
 * The primary's side (src/cluster.ts): passes a worker's revalidation to every other worker and answers how many
 * workers have it. IPC delivers in order, so a worker told after another has it before its next message.
 */
export function relayRevalidations(): void {
  cluster.on('message', (from: Worker, message: unknown) => {
    if (!isClusterMessage(message) || message.courier !== 'revalidate') return
    const connected = (worker: Worker | undefined): worker is Worker => worker !== undefined && worker.isConnected()
    const workers = Object.values(cluster.workers ?? {}).filter(connected)
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
}

export class ClusterRevalidation {
  readonly #pages: RevalidatedPages
  readonly #log: FastifyBaseLogger
  readonly #waiting = new Map<string, (instances: number) => void>()
  readonly #onMessage = (message: unknown) => {
    if (!isClusterMessage(message)) return
    if (message.courier === 'revalidate-apply') this.#pages.revalidate({ paths: message.paths, tags: message.tags })
    else if (message.courier === 'revalidate-told') this.#waiting.get(message.id)?.(message.instances)
  }

  constructor(options: ClusterRevalidationOptions) {
    this.#pages = options.pages
    this.#log = options.log
    process.on('message', this.#onMessage)
  }

  /** Whether this process is a worker with a primary to tell. */
  static available(): boolean {
    return cluster.isWorker && typeof process.send === 'function'
  }

  async tell(message: RevalidationMessage): Promise<{ instances: number }> {
    await this.#pages.regenerateNow(message)
    const id = randomUUID()
    const instances = await new Promise<number>((resolve) => {
      const timer = setTimeout(() => resolve(0), revalidation.clusterAckTimeoutMs)
      this.#waiting.set(id, (count) => {
        clearTimeout(timer)
        resolve(count)
      })
      try {
        const told: ClusterRevalidationMessage = { courier: 'revalidate', id, paths: message.paths, tags: message.tags }
        process.send?.(told)
      } catch {
        resolve(0)
      }
    })
    this.#waiting.delete(id)
    if (instances === 0) this.#log.warn(message, 'revalidation applied to this worker only: the primary did not answer')
    return { instances: Math.max(1, instances) }
  }

  close(): void {
    process.off('message', this.#onMessage)
  }
}
