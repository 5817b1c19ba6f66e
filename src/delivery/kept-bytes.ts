import { compression } from '../../config/compression.ts'
import {
  compressSegments,
  gzipStartWithInsertions,
  gzipWithInsertions,
  type GzipSegments,
  type GzipStart,
} from '../compression/gzip-segments.ts'
import { compressFrames, zstdWithInsertions, type ZstdFrames } from '../compression/zstd-frames.ts'
import { strongEtag } from '../etag.ts'
import type { KeptDocument } from '../render/document-cache.ts'
import { nonceAttribute } from '../render/template.ts'

/**
 * What the sender makes of a kept document, each on first use and kept as long as the document is: its gzip parts by
 * the lengths of what goes between them (a nonce attribute has one length, or none; the head tags another), since
 * parts compressed for those lengths refer back across them (src/compression/gzip-segments.ts); its zstd frames; its
 * strong ETag. A few gzip variants per document at most; past them, parts compressed alone serve any lengths.
 */
interface EncodedVariants {
  readonly gzip: Map<number, GzipSegments>
  zstd: ZstdFrames | undefined
  etag: string | undefined
}

const noBytes = Buffer.alloc(0)
const maxSegmentVariants = 4
const anyGapLengths = -1

/** What goes between the parts for one request: its nonce attribute (src/render/template.ts), or nothing. */
function nonceAttributeBytes(nonce: string | undefined): Buffer {
  return nonce ? Buffer.from(nonceAttribute(nonce), 'latin1') : noBytes
}

/** The parts with the first one cut where head tags go: the first gap is theirs, the others the nonce's. */
function partsAroundHead(document: KeptDocument): readonly Buffer[] {
  const { parts, headAt } = document
  if (headAt === undefined) return parts
  return [parts[0]!.subarray(0, headAt), parts[0]!.subarray(headAt), ...parts.slice(1)]
}

/** The buffers of one response in order: the parts with the request's nonce attribute in between, and its head tags. */
function documentList(document: KeptDocument, nonce: string | undefined, headTags: Buffer): readonly Buffer[] {
  const head = document.headAt === undefined ? noBytes : headTags
  const parts = head.length > 0 ? partsAroundHead(document) : document.parts
  if (parts.length === 1) return parts
  const attribute = nonceAttributeBytes(nonce)
  const list: Buffer[] = new Array(parts.length * 2 - 1)
  for (let index = 0; index < parts.length; index++) {
    if (index > 0) list[index * 2 - 1] = index === 1 && head.length > 0 ? head : attribute
    list[index * 2] = parts[index]!
  }
  return list
}

/** The bytes of one response: the parts with the request's nonce attribute in between, and its head tags. */
export function documentBytes(document: KeptDocument, nonce: string | undefined, headTags: Buffer = noBytes): Buffer {
  const list = documentList(document, nonce, headTags)
  return list.length === 1 ? list[0]! : Buffer.concat(list)
}

/** The last `count` bytes (at most) of `documentBytes`, without joining the rest: what a stream after it refers to. */
export function documentTail(
  document: KeptDocument,
  nonce: string | undefined,
  headTags: Buffer,
  count: number,
): Buffer {
  const list = documentList(document, nonce, headTags)
  const tail: Buffer[] = []
  let length = 0
  for (let index = list.length - 1; index >= 0 && length < count; index--) {
    const bytes = list[index]!
    const taken = bytes.length <= count - length ? bytes : bytes.subarray(bytes.length - (count - length))
    tail.unshift(taken)
    length += taken.length
  }
  return tail.length === 1 ? tail[0]! : Buffer.concat(tail, length)
}

/**
 * The byte assembly of kept documents (the render's, src/render/document-cache.ts): per request the nonce and head
 * tags go in between parts compressed once. The compressed parts are kept by document, weakly, so they go when the
 * document goes (a new page version, an opening dropped from its cache); the sender makes one of these per instance.
 */
export class KeptBytes {
  readonly #encoded = new WeakMap<KeptDocument, EncodedVariants>()

  #variants(document: KeptDocument): EncodedVariants {
    let variants = this.#encoded.get(document)
    if (!variants) {
      variants = { gzip: new Map(), zstd: undefined, etag: undefined }
      this.#encoded.set(document, variants)
    }
    return variants
  }

  /** The strong ETag of the document sent without insertions (no nonce, no head tags): made on first use. */
  etag(document: KeptDocument): string {
    const variants = this.#variants(document)
    return (variants.etag ??= strongEtag(Buffer.concat(document.parts)))
  }

  /** The compressed parts for these insertions: `between` (the nonce attribute), `first` (what the first gap takes). */
  #segmentsFor(document: KeptDocument, between: Buffer, first: Buffer): GzipSegments {
    const variants = this.#variants(document).gzip
    // Both lengths in one number (a nonce attribute and head tags are far shorter than 2^20 bytes): no string per
    // request.
    const key = first.length * 2 ** 20 + between.length
    let segments = variants.get(key)
    if (!segments) {
      const variant = variants.size < maxSegmentVariants ? key : anyGapLengths
      segments = variants.get(variant)
      if (!segments) {
        const parts = partsAroundHead(document)
        const gapLengths = parts.map((_part, index) => (index === 1 ? first.length : between.length))
        const lengths = variant === anyGapLengths ? undefined : gapLengths
        segments = compressSegments(parts, compression.gzipLevelOnce, lengths)
        variants.set(variant, segments)
      }
    }
    return segments
  }

  /**
   * What goes into one response's gzip member: the parts, the nonce attribute between them, and what the first gap
   * takes (the head tags where the document keeps a place for them, else the nonce attribute too).
   */
  #insertionsFor(document: KeptDocument, nonce: string | undefined, headTags: Buffer) {
    const between = nonceAttributeBytes(nonce)
    const first = document.headAt === undefined ? between : headTags
    return { segments: this.#segmentsFor(document, between, first), between, first }
  }

  /**
   * The start of the gzip bytes of one response: the parts compressed once (on first use, at the best level) with the
   * request's nonce attribute stored in between, and its head tags where they go; per request only a CRC is computed
   * (src/compression/gzip-segments.ts). A streamed document's kept opening continues with the render's pieces.
   */
  gzipStart(document: KeptDocument, nonce: string | undefined, headTags: Buffer = noBytes): GzipStart {
    const { segments, between, first } = this.#insertionsFor(document, nonce, headTags)
    return gzipStartWithInsertions(segments, between, first)
  }

  /** The whole gzip bytes of one response of a kept document: `gzipStart` and the end of the member, in one copy. */
  gzip(document: KeptDocument, nonce: string | undefined, headTags: Buffer = noBytes): Buffer {
    const { segments, between, first } = this.#insertionsFor(document, nonce, headTags)
    return gzipWithInsertions(segments, between, first)
  }

  /**
   * The whole zstd bytes of one response of a kept document: its parts' frames, compressed once (on first use, at the
   * best level), with the request's nonce attribute and head tags as raw frames in between: no compression per request.
   */
  zstd(document: KeptDocument, nonce: string | undefined, headTags: Buffer = noBytes): Buffer {
    const variants = this.#variants(document)
    // The parts as zstd frames, compressed once (src/compression/zstd-frames.ts).
    const frames = (variants.zstd ??= compressFrames(partsAroundHead(document), compression.zstdLevelOnce))
    const between = nonceAttributeBytes(nonce)
    return zstdWithInsertions(frames, between, document.headAt === undefined ? between : headTags)
  }
}
