import { errors } from '../errors.ts'

/**
 * At most `concurrency` transforms run at once; up to `maxQueued` more wait their turn in arrival order, and any
 * beyond that are refused at once (COURIER_ERR_IMAGE_BUSY, 429) instead of piling up memory.
 */
export class TransformQueue {
  #running = 0
  readonly #waiting: Array<() => void> = []
  readonly #concurrency: number
  readonly #maxQueued: number

  constructor(concurrency: number, maxQueued: number) {
    this.#concurrency = concurrency
    this.#maxQueued = maxQueued
  }

  get running(): number {
    return this.#running
  }

  get queued(): number {
    return this.#waiting.length
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#concurrency) {
      if (this.#waiting.length >= this.#maxQueued) throw new errors.ImageBusy()
      await new Promise<void>((resolve) => this.#waiting.push(resolve))
    } else {
      this.#running += 1
    }
    try {
      return await task()
    } finally {
      const next = this.#waiting.shift()
      // The slot passes straight to the next waiter, so `running` never dips and a newcomer cannot jump the queue.
      if (next) next()
      else this.#running -= 1
    }
  }
}
