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
