import { randomBytes } from 'node:crypto'
import { compression } from '../../config/compression.ts'
import { compressSegments, gzipStartWithInsertions, gzipWithInsertions, type GzipSegments, type GzipStart } from '../compression/gzip-segments.ts'
import { compressFrames, zstdWithInsertions, type ZstdFrames } from '../compression/zstd-frames.ts'
import { nonceAttribute } from './template.ts'

/**
 * A document rendered once, kept as the bytes between its nonce attributes: per request only the request's nonce
 * goes back in between (or nothing, where the request filter gave no nonce).
 */
export interface KeptDocument {
  /** The document split at every ` nonce="<placeholder>"`: n parts for n - 1 attributes. */
  parts: readonly Buffer[]
  /** Sum of the parts' lengths. */
  length: number
  /** Where per-request head tags go (the `traceparent` meta), in bytes into the first part; undefined: none go in. */
  headAt?: number | undefined
  /** Its encoded variants, each made once, on first use, and kept as long as the document is. */
  readonly encoded: EncodedVariants
  /** Its strong ETag when it is sent without insertions (no nonce, no head tags): made on first use. */
  etag?: string
}

/**
 * A kept document's compressed parts: gzip by the lengths of what goes between them (a nonce attribute has one
 * length, or none; the head tags another), since parts compressed for those lengths refer back across them (src/
 * compression/gzip-segments.ts); zstd frames once. A few gzip variants per document at most; past them, parts
 * compressed alone serve any lengths.
 */
export interface EncodedVariants {
  readonly gzip: Map<number, GzipSegments>
  zstd: ZstdFrames | undefined
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
  return { parts, length: parts.reduce((total, part) => total + part.length, 0), encoded: { gzip: new Map(), zstd: undefined } }
}

const noBytes = Buffer.alloc(0)

/** What goes between the parts for one request: its nonce attribute (src/render/template.ts), or nothing. */
function nonceAttributeBytes(nonce: string | undefined): Buffer {
  return nonce ? Buffer.from(nonceAttribute(nonce), 'latin1') : noBytes
}

const maxSegmentVariants = 4
const anyGapLengths = -1

/** The compressed parts for these insertions: `between` (the nonce attribute) and `first` (what the first gap takes). */
function segmentsFor(document: KeptDocument, between: Buffer, first: Buffer): GzipSegments {
  const variants = document.encoded.gzip
  // Both lengths in one number (a nonce attribute and head tags are far shorter than 2^20 bytes): no string per request.
  const key = first.length * 2 ** 20 + between.length
  let segments = variants.get(key)
  if (!segments) {
    const variant = variants.size < maxSegmentVariants ? key : anyGapLengths
    segments = variants.get(variant)
    if (!segments) {
      const parts = partsAroundHead(document)
      const gapLengths = parts.map((_part, index) => (index === 1 ? first.length : between.length))
      segments = compressSegments(parts, compression.gzipLevelOnce, variant === anyGapLengths ? undefined : gapLengths)
      variants.set(variant, segments)
    }
  }
  return segments
}

/**
 * What goes into one response's gzip member: the parts, the nonce attribute between them, and what the first gap
 * takes (the head tags where the document keeps a place for them, else the nonce attribute too).
 */
function insertionsFor(document: KeptDocument, nonce: string | undefined, headTags: Buffer) {
  const between = nonceAttributeBytes(nonce)
  const first = document.headAt === undefined ? between : headTags
  return { segments: segmentsFor(document, between, first), between, first }
}

/** The parts with the first one cut where head tags go: the first gap is theirs, the others the nonce's. */
function partsAroundHead(document: KeptDocument): readonly Buffer[] {
  const { parts, headAt } = document
  if (headAt === undefined) return parts
  return [parts[0]!.subarray(0, headAt), parts[0]!.subarray(headAt), ...parts.slice(1)]
}

/**
 * The start of the gzip bytes of one response: the parts compressed once (on first use, at the best level) with the
 * request's nonce attribute stored in between, and its head tags where they go; per request only a CRC is computed
 * (src/compression/gzip-segments.ts). A streamed document's kept opening continues with the render's pieces.
 */
export function gzipStartOf(document: KeptDocument, nonce: string | undefined, headTags: Buffer = noBytes): GzipStart {
  const { segments, between, first } = insertionsFor(document, nonce, headTags)
  return gzipStartWithInsertions(segments, between, first)
}

/** The whole gzip bytes of one response of a kept document: `gzipStartOf` and the end of the member, in one copy. */
export function gzippedDocumentBytes(document: KeptDocument, nonce: string | undefined, headTags: Buffer = noBytes): Buffer {
  const { segments, between, first } = insertionsFor(document, nonce, headTags)
  return gzipWithInsertions(segments, between, first)
}

/**
 * The whole zstd bytes of one response of a kept document: its parts' frames, compressed once (on first use, at the
 * best level), with the request's nonce attribute and head tags as raw frames in between: no compression per request.
 */
export function zstdDocumentBytes(document: KeptDocument, nonce: string | undefined, headTags: Buffer = noBytes): Buffer {
  // The parts as zstd frames, compressed once (src/compression/zstd-frames.ts).
  const frames = (document.encoded.zstd ??= compressFrames(partsAroundHead(document), compression.zstdLevelOnce))
  const between = nonceAttributeBytes(nonce)
  return zstdWithInsertions(frames, between, document.headAt === undefined ? between : headTags)
}

/** The bytes of one response: the parts with the request's nonce attribute in between, and its head tags. */
export function documentBytes(document: KeptDocument, nonce: string | undefined, headTags: Buffer = noBytes): Buffer {
  const head = document.headAt === undefined ? noBytes : headTags
  const parts = head.length > 0 ? partsAroundHead(document) : document.parts
  if (parts.length === 1) return parts[0]!
  const attribute = nonceAttributeBytes(nonce)
  const list: Buffer[] = new Array(parts.length * 2 - 1)
  for (let index = 0; index < parts.length; index++) {
    if (index > 0) list[index * 2 - 1] = index === 1 && head.length > 0 ? head : attribute
    list[index * 2] = parts[index]!
  }
  const gaps = parts.length - 1 - (head.length > 0 ? 1 : 0)
  return Buffer.concat(list, document.length + head.length + attribute.length * gaps)
}

/**
 * One document kept for the life of the deployment (this process): a promise, so concurrent first requests share one
 * render. A render that gives nothing (failed, timed out, hit an error) is dropped, and the next request tries again.
 */
export class KeptDocumentSlot {
  #pending: Promise<KeptDocument | undefined> | undefined
  #ready: KeptDocument | undefined

  /** Whether a document is kept here, or being rendered for keeping. */
  get holds(): boolean {
    return this.#pending !== undefined
  }

  /** The kept document once its render has ended: nothing to wait for. Undefined before (then `get`). */
  get ready(): KeptDocument | undefined {
    return this.#ready
  }

  /** The kept document, rendering it with `render` on first use; undefined: stream this request instead. */
  get(render: () => Promise<KeptDocument | undefined>): Promise<KeptDocument | undefined> {
    if (this.#pending) return this.#pending
    const pending = render().then(
      (document) => {
        if (!document) this.#pending = undefined
        this.#ready = document
        return document
      },
      () => {
        this.#pending = undefined
        return undefined
      },
    )
    this.#pending = pending
    return pending
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
