/**
 * After a failed regeneration of a page instance, none before `backoffMs` later (config/content.ts retryBackoffMs):
 * a source that is down is not asked again by every request. A revalidation is a new reason to try at once.
 */
export class RetryBackoff {
  readonly #backoffMs: number
  readonly #now: () => number
  /** By key: no regeneration before this time (ms). */
  readonly #retryAt = new Map<string, number>()

  constructor(backoffMs: number, now: () => number) {
    this.#backoffMs = backoffMs
    this.#now = now
  }

  /** Whether the instance `key` may be regenerated now. */
  mayTry(key: string): boolean {
    const retryAt = this.#retryAt.get(key)
    return retryAt === undefined || this.#now() >= retryAt
  }

  failed(key: string): void {
    this.#retryAt.set(key, this.#now() + this.#backoffMs)
  }

  clear(key: string): void {
    this.#retryAt.delete(key)
  }
}
