import type { CacheBounds } from '../config/caches.ts'

/**
 * A cache bounded by one rule (config/caches.ts): the bytes its entries hold, then their number; past either, the
 * least recently used entry goes. Every cache of the delivery (parsed headers, kept openings, plain error answers) and
 * the parsed content files are one of these, made by `buildApp` and passed down: none lives in module scope.
 */
export class BoundedCache<K, V> {
  readonly #entries = new Map<K, { value: V; bytes: number }>()
  readonly #bounds: CacheBounds
  readonly #sizeOf: (value: V, key: K) => number
  readonly #onEvict: ((key: K, value: V) => void) | undefined
  #bytes = 0
  /** The most recently used key: asked again (the common case: one browser's header), nothing moves. */
  #newest: K | undefined

  /**
   * `sizeOf`: an estimate of the bytes an entry holds (its strings and buffers). `onEvict`: told of each entry the
   * bounds push out (not of those deleted or replaced).
   */
  constructor(bounds: CacheBounds, sizeOf: (value: V, key: K) => number, onEvict?: (key: K, value: V) => void) {
    this.#bounds = bounds
    this.#sizeOf = sizeOf
    this.#onEvict = onEvict
  }

  /** The entries, least recently used first, without touching their order. */
  *entries(): IterableIterator<[K, V]> {
    for (const [key, entry] of this.#entries) yield [key, entry.value]
  }

  get size(): number {
    return this.#entries.size
  }

  /** The bytes the entries hold, by their estimate. */
  get bytes(): number {
    return this.#bytes
  }

  /** The value of `key`, now the most recently used; undefined when none is kept. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key)
    if (!entry) return undefined
    if (key !== this.#newest) {
      // Re-inserted: the Map's order is the order of last use.
      this.#entries.delete(key)
      this.#entries.set(key, entry)
      this.#newest = key
    }
    return entry.value
  }

  /** Keeps `value` under `key`, dropping the least recently used entries it does not fit beside. */
  set(key: K, value: V): void {
    this.delete(key)
    const bytes = this.#sizeOf(value, key)
    const { maxBytes, maxEntries } = this.#bounds
    if (bytes > maxBytes || maxEntries <= 0) return
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes + bytes <= maxBytes && this.#entries.size < maxEntries) break
      this.#entries.delete(oldest)
      this.#bytes -= entry.bytes
      this.#onEvict?.(oldest, entry.value)
    }
    this.#entries.set(key, { value, bytes })
    this.#newest = key
    this.#bytes += bytes
  }

  /** The value of `key` without making it the most recently used. */
  peek(key: K): V | undefined {
    return this.#entries.get(key)?.value
  }

  /** The value of `key`, made by `make` and kept when none is. */
  getOrSet(key: K, make: () => V): V {
    const kept = this.get(key)
    if (kept !== undefined) return kept
    const value = make()
    this.set(key, value)
    return value
  }

  /** Drops every entry. */
  clear(): void {
    this.#entries.clear()
    this.#bytes = 0
    this.#newest = undefined
  }

  delete(key: K): void {
    const entry = this.#entries.get(key)
    if (!entry) return
    this.#entries.delete(key)
    this.#bytes -= entry.bytes
    if (key === this.#newest) this.#newest = undefined
  }
}
