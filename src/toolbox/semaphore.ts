export interface SemaphoreOptions {
  /** Holders at once; more wait. */
  max: number
  /** Waiters at most; one more is refused at once with `busy()` instead of piling up memory. */
  maxQueued?: number
  /** Held and waiting together, per key (a client's address): one key cannot fill the queue for everyone. */
  maxPerKey?: number
  /** The error a refused caller gets. */
  busy?: () => Error
}

/** A place taken: gives it back (once; a second call does nothing). */
export type Release = () => void

/** A place asked for: `granted` resolves once it is the caller's; `cancel` gives it up, waiting or granted. */
export interface Ticket {
  readonly granted: Promise<Release>
  cancel(): void
}

interface Waiter {
  key: string
  grant: () => void
  cancelled: boolean
}

/**
 * At most `max` holders at once, the rest waiting in a bounded queue. A freed place passes straight to the next waiter
 * (so a newcomer cannot jump the queue), and the next waiter is the one of the waiting key served least recently (each
 * key's own waiters in arrival order): a key that queued many does not make the next key wait for all of them.
 */
export class Semaphore {
  readonly #max: number
  readonly #maxQueued: number
  readonly #maxPerKey: number
  readonly #busy: () => Error
  #running = 0
  #queued = 0
  /** Waiters per key, in arrival order. */
  readonly #waiting = new Map<string, Waiter[]>()
  /** Places each key holds, running or waiting. */
  readonly #held = new Map<string, number>()
  /** When each key holding places was last given one (a counter): the least recent is served next. */
  readonly #lastServed = new Map<string, number>()
  #grants = 0

  constructor(options: SemaphoreOptions) {
    const { max, maxQueued = Number.POSITIVE_INFINITY, maxPerKey = Number.POSITIVE_INFINITY } = options
    this.#max = max
    this.#maxQueued = maxQueued
    this.#maxPerKey = maxPerKey
    this.#busy = options.busy ?? (() => new Error('busy: the queue is full'))
  }

  /** Places held now. */
  get running(): number {
    return this.#running
  }

  /** Callers waiting now. */
  get queued(): number {
    return this.#queued
  }

  /** `task` run in a place of its own; refused with `busy()` when the queue or the key's share is full. */
  async run<T>(task: () => Promise<T>, key = ''): Promise<T> {
    const release = await this.acquire(key).granted
    try {
      return await task()
    } finally {
      release()
    }
  }

  /** Asks for a place. The ticket's `granted` rejects with `busy()` at once when it cannot even wait. */
  acquire(key = ''): Ticket {
    const held = this.#held.get(key) ?? 0
    if (held >= this.#maxPerKey || (this.#running >= this.#max && this.#queued >= this.#maxQueued)) {
      return { granted: Promise.reject(this.#busy()), cancel: () => undefined }
    }
    this.#held.set(key, held + 1)
    if (this.#running < this.#max) {
      this.#running += 1
      this.#served(key)
      const release = this.#releaser(key)
      return { granted: Promise.resolve(release), cancel: release }
    }
    this.#queued += 1
    let release: Release | undefined
    const waiter: Waiter = { key, grant: () => undefined, cancelled: false }
    const granted = new Promise<Release>((resolve) => {
      waiter.grant = () => resolve((release = this.#releaser(key)))
    })
    const waiters = this.#waiting.get(key)
    if (waiters) waiters.push(waiter)
    else this.#waiting.set(key, [waiter])
    const cancel = () => {
      if (release) return release()
      if (waiter.cancelled) return
      waiter.cancelled = true
      this.#unqueue(waiter)
      this.#leave(key)
    }
    return { granted, cancel }
  }

  #releaser(key: string): Release {
    let released = false
    return () => {
      if (released) return
      released = true
      this.#leave(key)
      const next = this.#nextWaiter()
      if (next) next.grant()
      else this.#running -= 1
    }
  }

  #leave(key: string): void {
    const left = (this.#held.get(key) ?? 1) - 1
    if (left > 0) return void this.#held.set(key, left)
    this.#held.delete(key)
    this.#lastServed.delete(key)
  }

  #served(key: string): void {
    this.#grants += 1
    this.#lastServed.set(key, this.#grants)
  }

  #unqueue(waiter: Waiter): void {
    const waiters = this.#waiting.get(waiter.key)
    const index = waiters?.indexOf(waiter) ?? -1
    if (!waiters || index < 0) return
    waiters.splice(index, 1)
    if (waiters.length === 0) this.#waiting.delete(waiter.key)
    this.#queued -= 1
  }

  /** The first waiter of the waiting key served least recently (one never served first, in arrival order). */
  #nextWaiter(): Waiter | undefined {
    let chosen: Waiter[] | undefined
    let chosenServed = Number.POSITIVE_INFINITY
    for (const [key, waiters] of this.#waiting) {
      const served = this.#lastServed.get(key) ?? 0
      if (served < chosenServed) {
        chosen = waiters
        chosenServed = served
      }
    }
    const next = chosen?.[0]
    if (!next) return undefined
    this.#unqueue(next)
    this.#served(next.key)
    return next
  }
}
