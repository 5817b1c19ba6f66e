import { randomBytes } from 'node:crypto'
import { KeptFlight } from '../toolbox/single-flight.ts'

/**
 * A document rendered once, kept as the bytes between its nonce attributes: what the renderer gives for keeping. Per
 * request only the request's nonce goes back in between (or nothing, where the request filter gave no nonce), and the
 * sender (src/delivery/kept-bytes.ts) does that, with the compressed parts it makes of it: this is the render's part
 * and never changes once made.
 */
export interface KeptDocument {
  /** The document split at every ` nonce="<placeholder>"`: n parts for n - 1 attributes. */
  readonly parts: readonly Buffer[]
  /** Sum of the parts' lengths. */
  readonly length: number
  /** Where per-request head tags go (the `traceparent` meta), in bytes into the first part; undefined: none go in. */
  readonly headAt?: number | undefined
}

/**
 * What a render-once render writes as its nonce: random per process and hex only (HTML escaping leaves it alone), so
 * no page content, URL or data can spell it.
 */
export const documentNoncePlaceholder = `courier-nonce-${randomBytes(12).toString('hex')}`
const placeholderAttribute = ` nonce="${documentNoncePlaceholder}"`

/**
 * Splits a document rendered with the placeholder nonce; `headAt`: where its head tags go (src/render/template.ts).
 * Undefined when the placeholder appears anywhere but in a nonce attribute: such a document is not kept (it would
 * leak the placeholder).
 */
export function splitAtNonce(html: string, headAt?: number): KeptDocument | undefined {
  const texts = html.split(placeholderAttribute)
  if (texts.some((text) => text.includes(documentNoncePlaceholder))) return undefined
  const parts = texts.map((text) => Buffer.from(text, 'utf8'))
  return { parts, length: parts.reduce((total, part) => total + part.length, 0), headAt }
}

/**
 * One document kept for the life of the deployment (this process): a promise, so concurrent first requests share one
 * render. A render that gives nothing (failed, timed out, hit an error) is dropped, and the next request tries again.
 */
export class KeptDocumentSlot extends KeptFlight<KeptDocument | undefined> {
  constructor() {
    super((document) => document !== undefined)
  }

  /** The kept document, rendering it with `render` on first use; undefined: stream this request instead. */
  override get(render: () => Promise<KeptDocument | undefined>): Promise<KeptDocument | undefined> {
    // A render that failed has told its failure; this request streams instead, and the next one tries again.
    return super.get(() => render().catch(() => undefined))
  }
}

/**
 * Documents kept by key (the error pages, by status), at most `maxEntries`. Once full, new keys get no slot: their
 * requests stream.
 */
export class DocumentCache {
  readonly #maxEntries: number
  readonly #slots = new Map<string, KeptDocumentSlot>()

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries
  }

  /** Documents kept or being rendered. */
  get size(): number {
    let size = 0
    for (const slot of this.#slots.values()) if (slot.holds) size++
    return size
  }

  /** The slot of `key`; undefined when the cache is full and `key` holds nothing. */
  slot(key: string): KeptDocumentSlot | undefined {
    const existing = this.#slots.get(key)
    if (existing?.holds) return existing
    if (this.size >= this.#maxEntries) return undefined
    if (existing) return existing
    const slot = new KeptDocumentSlot()
    this.#slots.set(key, slot)
    return slot
  }

  /** The kept document of `key`, rendering it with `render` on first use; undefined: stream this request instead. */
  get(key: string, render: () => Promise<KeptDocument | undefined>): Promise<KeptDocument | undefined> {
    return this.slot(key)?.get(render) ?? Promise.resolve(undefined)
  }
}
