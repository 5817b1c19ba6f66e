import { caches, type CacheBounds } from '../../config/caches.ts'
import { BoundedCache } from '../bounded-cache.ts'
import type { GzipStart } from '../compression/gzip-segments.ts'
import { documentNoncePlaceholder, splitAtNonce, type KeptDocument } from '../render/document-cache.ts'
import type { DocumentHead, DocumentTemplate } from '../render/template.ts'
import { documentBytes, KeptBytes } from './kept-bytes.ts'

/**
 * The openings of streamed documents, kept as the bytes between their nonce attributes and compressed once (the way
 * a kept document is, src/delivery/kept-bytes.ts): per gzip response only the nonce and head tags go in, as stored
 * blocks, and only React's output is compressed. The opening is the larger part of a small dynamic page (4.5 of the
 * 5.9 kB of `/status`, most of it the inlined stylesheet), and compressing it took a sixth of that page's CPU.
 */
export class KeptOpenings {
  readonly #byTemplate = new WeakMap<DocumentTemplate, BoundedCache<string, KeptDocument | null>>()
  readonly #bounds: CacheBounds
  readonly #bytes: KeptBytes

  /** `bounds`: config/caches.ts; `bytes`: where their compressed parts are kept (the sender's). */
  constructor(bounds: CacheBounds = caches.keptOpenings, bytes: KeptBytes = new KeptBytes()) {
    this.#bounds = bounds
    this.#bytes = bytes
  }

  /**
   * The gzip start of the document `template.open(head, nonce, headTags)` begins with, and the bytes it decodes to;
   * undefined where it cannot be kept (head tags but no place kept for them, or an opening that spells the
   * placeholder): compress it per request.
   */
  gzipStart(
    template: DocumentTemplate,
    head: DocumentHead,
    nonce: string | undefined,
    headTags: string,
  ): { start: GzipStart; sent: Buffer } | undefined {
    if (headTags !== '' && template.headTagsAt === undefined) return undefined
    const opening = this.#opening(template, head)
    if (!opening) return undefined
    const tags = Buffer.from(headTags)
    return { start: this.#bytes.gzipStart(opening, nonce, tags), sent: documentBytes(opening, nonce, tags) }
  }

  #opening(template: DocumentTemplate, head: DocumentHead): KeptDocument | undefined {
    let openings = this.#byTemplate.get(template)
    if (!openings) {
      openings = new BoundedCache(this.#bounds, openingBytes)
      this.#byTemplate.set(template, openings)
    }
    const key = headKey(head)
    let opening = openings.get(key)
    if (opening === undefined) {
      opening = splitAtNonce(template.open(head, documentNoncePlaceholder), template.headTagsAt) ?? null
      openings.set(key, opening)
    }
    return opening ?? undefined
  }

  /** Openings kept for `template`. */
  size(template: DocumentTemplate): number {
    return this.#byTemplate.get(template)?.size ?? 0
  }
}

/** Everything of a head the opening is made of, as one string. */
function headKey(head: DocumentHead): string {
  return JSON.stringify([head.title, head.description, head.preloadModules, head.preloadStyles])
}

/** What a kept opening holds: its key, its bytes and their gzip parts (at most as long as the bytes). */
function openingBytes(opening: KeptDocument | null, key: string): number {
  return key.length * 2 + (opening ? opening.length * 2 : 0)
}
