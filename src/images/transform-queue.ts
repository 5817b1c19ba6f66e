import { errors } from '../errors.ts'

/**
 * At most `concurrency` transforms run at once; up to `maxQueued` more wait their turn, and any beyond that are
 * refused at once (COURIER_ERR_IMAGE_BUSY, 429) instead of piling up memory. One client (its key, the request's IP) may
 * hold at most `maxPerClient` of them, running and waiting together, so a single client cannot fill the queue for
 * everyone; and a freed slot goes to the waiting client served least recently (each client's own waiters in arrival
 * order), so a client that queued many does not make the next one wait for all of them.
 */
export class TransformQueue {
  #running = 0
  #queued = 0
  /** Waiters per client, in arrival order. */
  readonly #waiting = new Map<string, Array<() => void>>()
  /** Transforms each client holds, running or waiting. */
  readonly #held = new Map<string, number>()
  /** When each client holding transforms was last given a slot (a counter): the least recent is served next. */
  readonly #lastServed = new Map<string, number>()
  #grants = 0
  readonly #concurrency: number
  readonly #maxQueued: number
  readonly #maxPerClient: number

  constructor(concurrency: number, maxQueued: number, maxPerClient = Number.POSITIVE_INFINITY) {
    this.#concurrency = concurrency
    this.#maxQueued = maxQueued
    this.#maxPerClient = maxPerClient
  }

  get running(): number {
    return this.#running
  }

  get queued(): number {
    return this.#queued
  }

  async run<T>(task: () => Promise<T>, client = ''): Promise<T> {
    const held = this.#held.get(client) ?? 0
    if (held >= this.#maxPerClient) throw new errors.ImageBusy()
    if (this.#running >= this.#concurrency) {
      if (this.#queued >= this.#maxQueued) throw new errors.ImageBusy()
      this.#held.set(client, held + 1)
      this.#queued += 1
      await new Promise<void>((resolve) => {
        const waiters = this.#waiting.get(client)
        if (waiters) waiters.push(resolve)
        else this.#waiting.set(client, [resolve])
      })
    } else {
      this.#held.set(client, held + 1)
      this.#running += 1
      this.#grants += 1
      this.#lastServed.set(client, this.#grants)
    }
    try {
      return await task()
    } finally {
      const left = (this.#held.get(client) ?? 1) - 1
      if (left === 0) {
        this.#held.delete(client)
        this.#lastServed.delete(client)
      } else {
        this.#held.set(client, left)
      }
      // The slot passes straight to the next waiter, so `running` never dips and a newcomer cannot jump the queue.
      const next = this.#nextWaiter()
      if (next) next()
      else this.#running -= 1
    }
  }

  /** The first waiter of the waiting client served least recently (one never served first, in arrival order). */
  #nextWaiter(): (() => void) | undefined {
    let chosen: string | undefined
    let chosenServed = Number.POSITIVE_INFINITY
    for (const client of this.#waiting.keys()) {
      const served = this.#lastServed.get(client) ?? 0
      if (served < chosenServed) {
        chosen = client
        chosenServed = served
      }
    }
    if (chosen === undefined) return undefined
    const waiters = this.#waiting.get(chosen)!
    const next = waiters.shift()!
    if (waiters.length === 0) this.#waiting.delete(chosen)
    this.#queued -= 1
    this.#grants += 1
    this.#lastServed.set(chosen, this.#grants)
    return next
  }
}
