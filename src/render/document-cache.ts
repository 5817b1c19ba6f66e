import { randomBytes } from 'node:crypto'
import { escapeHtml } from './template.ts'

/**
 * A document rendered once, kept as the bytes between its nonce attributes: per request only the request's nonce
 * goes back in between (or nothing, where the request filter gave no nonce).
 */
export interface KeptDocument {
  /** The document split at every ` nonce="<placeholder>"`: n parts for n - 1 attributes. */
  parts: readonly Buffer[]
  /** Sum of the parts' lengths. */
  length: number
}

/**
 * What a render-once render writes as its nonce: random per process and hex only (HTML escaping leaves it alone), so
 * no page content, URL or data can spell it.
 */
export const documentNoncePlaceholder = `courier-nonce-${randomBytes(12).toString('hex')}`
const placeholderAttribute = ` nonce="${documentNoncePlaceholder}"`

/**
 * Splits a document rendered with the placeholder nonce. Undefined when the placeholder appears anywhere but in a
 * nonce attribute: such a document is not kept (it would leak the placeholder).
 */
export function splitAtNonce(html: string): KeptDocument | undefined {
  const texts = html.split(placeholderAttribute)
  if (texts.some((text) => text.includes(documentNoncePlaceholder))) return undefined
  const parts = texts.map((text) => Buffer.from(text, 'utf8'))
  return { parts, length: parts.reduce((total, part) => total + part.length, 0) }
}

const noBytes = Buffer.alloc(0)

/** The bytes of one response: the parts with the request's nonce attribute in between. */
export function documentBytes(document: KeptDocument, nonce: string | undefined): Buffer {
  const { parts } = document
  if (parts.length === 1) return parts[0]!
  const attribute = nonce ? Buffer.from(` nonce="${escapeHtml(nonce)}"`, 'latin1') : noBytes
  const list: Buffer[] = new Array(parts.length * 2 - 1)
  for (let index = 0; index < parts.length; index++) {
    if (index > 0) list[index * 2 - 1] = attribute
    list[index * 2] = parts[index]!
  }
  return Buffer.concat(list, document.length + attribute.length * (parts.length - 1))
}

/**
 * Documents kept for the life of the deployment (this process), by key, at most `maxEntries`. An entry is a promise,
 * so concurrent first requests share one render; a render that gives nothing (failed, timed out, hit an error) is
 * dropped, and the next request tries again. Once full, new keys are not rendered once: their requests stream.
 */
export class DocumentCache {
  readonly #maxEntries: number
  readonly #entries = new Map<string, Promise<KeptDocument | undefined>>()

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries
  }

  get size(): number {
    return this.#entries.size
  }

  /** The kept document for `key`, rendering it with `render` on first use; undefined: stream this request instead. */
  get(key: string, render: () => Promise<KeptDocument | undefined>): Promise<KeptDocument | undefined> {
    const kept = this.#entries.get(key)
    if (kept) return kept
    if (this.#entries.size >= this.#maxEntries) return Promise.resolve(undefined)
    const pending = render().then(
      (document) => {
        if (!document) this.#entries.delete(key)
        return document
      },
      () => {
        this.#entries.delete(key)
        return undefined
      },
    )
    this.#entries.set(key, pending)
    return pending
  }
}
