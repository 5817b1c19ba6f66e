/**
 * One producer per key at a time in this process: a caller that asks for a key already being made gets the same
 * promise, and the key is free again once it settles (a failure is not kept: the next caller makes it again).
 */
export class SingleFlight<Key, Value> {
  readonly #running = new Map<Key, Promise<Value>>()

  /** The value being made for `key`, or a new making of it by `make`. */
  run(key: Key, make: () => Promise<Value>): Promise<Value> {
    const running = this.#running.get(key)
    if (running) return running
    const making = make().finally(() => {
      if (this.#running.get(key) === making) this.#running.delete(key)
    })
    this.#running.set(key, making)
    return making
  }

  /** How many keys are being made now. */
  get size(): number {
    return this.#running.size
  }

  /** Whether `key` is being made now. */
  has(key: Key): boolean {
    return this.#running.has(key)
  }

  /** The making of `key` under way, if any. */
  get(key: Key): Promise<Value> | undefined {
    return this.#running.get(key)
  }
}

/**
 * One value made once and kept: concurrent first callers share one making; a making that fails, or whose value
 * `keep` refuses, is dropped, and the next caller makes it again (a failure is not kept).
 */
export class KeptFlight<Value> {
  #pending: Promise<Value> | undefined
  #ready: Value | undefined
  readonly #keep: (value: Value) => boolean

  constructor(keep: (value: Value) => boolean = () => true) {
    this.#keep = keep
  }

  /** Whether a value is kept here, or being made for keeping. */
  get holds(): boolean {
    return this.#pending !== undefined
  }

  /** The kept value once its making has ended: nothing to wait for. Undefined before (then `get`). */
  get ready(): Value | undefined {
    return this.#ready
  }

  /** The kept value, made by `make` on first use. */
  get(make: () => Promise<Value>): Promise<Value> {
    if (this.#pending) return this.#pending
    const pending = make().then(
      (value) => {
        if (this.#keep(value)) this.#ready = value
        else this.#pending = undefined
        return value
      },
      (error: unknown) => {
        this.#pending = undefined
        throw error
      },
    )
    this.#pending = pending
    return pending
  }
}
