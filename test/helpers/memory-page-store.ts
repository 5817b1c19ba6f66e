import { SingleFlight } from '../../src/toolbox/single-flight.ts'
import type { FleetProduction } from '../../src/shared-state/fleet-lock.ts'
import type { FleetPageStore, SharedPageVersion } from '../../src/shared-state/fleet-page-store.ts'
import type { RevalidationMessage } from '../../src/pages/revalidation.ts'

const settled = () => undefined

/**
 * The fleet's page versions and revalidation log in memory: what the Redis store (src/shared-state/redis-page-store.ts)
 * keeps, for instances that share one process (the unit tests of src/shared-state/shared-pages.ts). Its lock is a
 * single flight: one maker per key, the others wait for it and look again, as they do at a Redis lock.
 */
export class MemoryPageStore implements FleetPageStore {
  readonly #versions = new Map<string, SharedPageVersion>()
  /** Revalidations by number, from 1; the oldest dropped past `logLength`. */
  readonly #log = new Map<number, RevalidationMessage>()
  readonly #logLength: number
  readonly #making = new SingleFlight<string, void>()
  #newest = 0
  /** When false, every read answers `unavailable`, as a Redis that is down does. */
  available = true

  constructor(options: { logLength?: number } = {}) {
    this.#logLength = options.logLength ?? Number.POSITIVE_INFINITY
  }

  /** Logs a revalidation, as the instance that takes a call does (src/shared-state/revalidation-channel.ts). */
  append(message: RevalidationMessage): number {
    this.#newest += 1
    this.#log.set(this.#newest, message)
    this.#log.delete(this.#newest - this.#logLength)
    return this.#newest
  }

  async read(key: string): Promise<{ version: SharedPageVersion | undefined; newest: number } | 'unavailable'> {
    if (!this.available) return 'unavailable'
    return { version: this.#versions.get(key), newest: this.#newest }
  }

  async newest(): Promise<number> {
    return this.available ? this.#newest : 0
  }

  async revalidationsSince(since: number, upTo: number): Promise<RevalidationMessage[] | 'gone' | 'unavailable'> {
    if (!this.available) return 'unavailable'
    const messages: RevalidationMessage[] = []
    for (let seq = since + 1; seq <= upTo; seq++) {
      const message = this.#log.get(seq)
      if (!message) return 'gone'
      messages.push(message)
    }
    return messages
  }

  async write(key: string, version: SharedPageVersion): Promise<void> {
    if (this.available) this.#versions.set(key, version)
  }

  async produce<Value>(key: string, production: FleetProduction<Value>): Promise<{ value: Value; made: boolean }> {
    for (;;) {
      const found = await production.find()
      if (found === 'unavailable') return { value: await production.makeAlone(), made: true }
      if (found !== undefined) return { value: found, made: false }
      const holder = this.#making.get(key)
      if (!holder) {
        const making = production.make()
        void this.#making.run(key, () => making.then(settled, settled))
        return { value: await making, made: true }
      }
      // Another maker holds the key: wait for it, then look again (its version may not fit this instance).
      await holder
    }
  }
}
