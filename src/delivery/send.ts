import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Readable } from 'node:stream'
import { caches } from '../../config/caches.ts'
import { compression } from '../../config/compression.ts'
import { compressBody, compressOnceOffLoop, flushedStream } from '../compression/compress.ts'
import type { DictionaryCoding } from '../compression/dictionaries.ts'
import {
  dictionaryCoding,
  identityAcceptable,
  negotiateCoding,
  parsedAcceptEncoding,
  type Coding,
  type ContentCoding,
  type ParsedAcceptEncoding,
} from '../compression/negotiate.ts'
import { gzipPieces, identityPieces, lastPieceEvent } from '../compression/pieces.ts'
import { addVary } from '../compression/vary.ts'
import { encodedEtag, matchesAnyEncoding } from '../etag.ts'
import type { KeptDocument } from '../render/document-cache.ts'
import type { StreamFraming } from '../render/renderer.ts'
import { ClientGoneError } from '../render/stream.ts'
import type { DocumentHead, DocumentTemplate } from '../render/template.ts'
import { documentBytes, documentTail, KeptBytes } from './kept-bytes.ts'
import { KeptOpenings } from './kept-openings.ts'

/**
 * The kinds of answer the sender codes, each with its order among codings a client weighs alike
 * (config/compression.ts).
 */
export type AnswerKind = keyof typeof compression.codingPreference

/**
 * A body kept for the deployment whole (a static page's data), with its strong ETag: the same object for as long as
 * it is served, so its encodings, each made once, are kept by it (weakly: they go when it goes).
 */
export interface KeptBody {
  readonly body: string
  readonly etag: string
}

/**
 * What the route says of a kept body's answer: its status, Cache-Control and type (none of which a 304 repeats but the
 * first two).
 */
export interface AnswerHead {
  statusCode: number
  cacheControl: string
  type: string
}

/**
 * How a streamed document goes on the wire: its coding, and the framing the renderer writes it in (the pieces' coding,
 * and the opening left for the stream to write: '' where a kept opening already starts the pieces, as gzip's does).
 */
export interface StreamCoding extends StreamFraming {
  coding: Coding
}

/**
 * The one place Courier decides how the bytes of an answer go on the wire (docs/compression.md "One seam for the
 * bytes on the wire"), and the one that reads `Accept-Encoding`: it negotiates the coding of every kind of answer once
 * per response and sets `Content-Encoding`, `Vary`, `ETag` (where the answer has one) and `Content-Length` (where the
 * length is known) for kept documents (their bytes assembled per request, src/delivery/kept-bytes.ts), streamed
 * documents (and their kept openings), kept page data, the per-request compression of plugins/compression.ts, and
 * the built assets' precompressed files and dictionary deltas (src/delivery/built-assets.ts). It holds their caches
 * (parsed headers, kept openings, what is compressed of kept documents and bodies): `buildApp` makes one per instance.
 */
export class Sender {
  readonly #parsed: ParsedAcceptEncoding
  readonly #bytes = new KeptBytes()
  readonly #openings: KeptOpenings
  /** Kept bodies' encodings, each made once, by the body they encode. */
  readonly #bodies = new WeakMap<KeptBody, Map<ContentCoding, Buffer | Promise<Buffer>>>()

  constructor(
    bounds: { acceptEncoding: typeof caches.acceptEncoding; keptOpenings: typeof caches.keptOpenings } = caches,
  ) {
    this.#parsed = parsedAcceptEncoding(bounds.acceptEncoding)
    this.#openings = new KeptOpenings(bounds.keptOpenings, this.#bytes)
  }

  /**
   * The coding of an answer of `kind`, `byteLength` bytes long when known: none below `compression.minBytes` (unless
   * the client refuses identity), else as negotiated among the kind's codings.
   */
  codingFor(request: FastifyRequest, kind: AnswerKind, byteLength?: number): Coding {
    const header = request.headers['accept-encoding']
    if (byteLength !== undefined && byteLength < compression.minBytes && identityAcceptable(header, this.#parsed)) {
      return 'identity'
    }
    return negotiateCoding(header, compression.codingPreference[kind], this.#parsed)
  }

  /**
   * A kept document with this request's insertions: its nonce and its head tags (the `traceparent` meta). gzip and
   * zstd: the parts were compressed once, so a response costs a CRC (gzip) or a copy (zstd); brotli, where only it will
   * do, is a compression per response.
   */
  sendKeptDocument(
    request: FastifyRequest,
    reply: FastifyReply,
    document: KeptDocument,
    headTags: string,
  ): FastifyReply {
    this.varyByCoding(reply)
    const tags = headTags ? Buffer.from(headTags, 'latin1') : undefined
    const nonce = request.cspNonce
    const coding = this.codingFor(request, 'keptDocument')
    // A document sent as it was kept, with nothing of the request in it (a path the request filter leaves without a
    // nonce, as /faq, and no per-request head tags), is the same bytes for everyone on every instance: it gets a
    // strong ETag, one per coding, and 304s, as kept page data does. A nonce-bearing document never does.
    if (nonce === undefined && tags === undefined && reply.statusCode === 200) {
      const etag = this.#bytes.etag(document)
      reply.header('etag', encodedEtag(etag, coding))
      if (matchesAnyEncoding(request.headers['if-none-match'], etag)) return notModified(reply)
    }
    if (coding === 'gzip') return sendBytes(reply, this.#bytes.gzip(document, nonce, tags), coding)
    if (coding === 'zstd') return sendBytes(reply, this.#bytes.zstd(document, nonce, tags), coding)
    const plain = documentBytes(document, nonce, tags)
    if (coding === 'br' && this.codingFor(request, 'perRequest', plain.length) === 'br') {
      return sendBytes(reply, compressBody(plain, 'br', 'perRequest'), 'br')
    }
    return sendBytes(reply, plain, 'identity')
  }

  /**
   * A body kept whole for the deployment: its encoding compressed once per coding (the best each does, on the thread
   * pool: the first request of a coding waits for it, with any beside it, while the event loop serves others), its
   * ETag that encoding's own; 304 when If-None-Match names any encoding of it.
   */
  sendKeptBody(
    request: FastifyRequest,
    reply: FastifyReply,
    kept: KeptBody,
    head: AnswerHead,
  ): FastifyReply | Promise<FastifyReply> {
    const coding = this.codingFor(request, 'pageData', Buffer.byteLength(kept.body))
    this.varyByCoding(reply)
    reply.header('etag', encodedEtag(kept.etag, coding))
    if (matchesAnyEncoding(request.headers['if-none-match'], kept.etag)) {
      return notModified(reply.header('cache-control', head.cacheControl))
    }
    if (coding !== 'identity') reply.header('content-encoding', coding)
    reply.code(head.statusCode).header('cache-control', head.cacheControl).type(head.type)
    if (coding === 'identity') return reply.send(kept.body)
    let encodings = this.#bodies.get(kept)
    if (!encodings) this.#bodies.set(kept, (encodings = new Map()))
    const encoded = encodings.get(coding)
    if (encoded !== undefined && !(encoded instanceof Promise)) return sendBytes(reply, encoded, coding)
    const compressing = encoded ?? this.#compressOnce(encodings, kept.body, coding)
    return compressing.then((bytes) => sendBytes(reply, bytes, coding))
  }

  /** `body` in `coding` at the best ratio, off the event loop; kept in `encodings` once made (a failure is not). */
  #compressOnce(encodings: Map<ContentCoding, Buffer | Promise<Buffer>>, body: string, coding: ContentCoding) {
    const compressing = compressOnceOffLoop(body, coding).then(
      (bytes) => {
        encodings.set(coding, bytes)
        return bytes
      },
      (error: unknown) => {
        encodings.delete(coding)
        throw error
      },
    )
    encodings.set(coding, compressing)
    return compressing
  }

  /**
   * The coding of a streamed document, chosen before its render starts: gzip in pieces as React writes them, its
   * opening compressed once and kept where it can be (src/delivery/kept-openings.ts); brotli or zstd through a
   * compressor flushed once per piece (`sendStream`).
   */
  streamCoding(
    request: FastifyRequest,
    template: DocumentTemplate,
    head: DocumentHead,
    headTags: string,
  ): StreamCoding {
    const coding = this.codingFor(request, 'streamedDocument')
    const nonce = request.cspNonce
    const kept = coding === 'gzip' ? this.#openings.gzipStart(template, head, nonce, headTags) : undefined
    return {
      coding,
      pieces: coding === 'gzip' ? gzipPieces(kept?.start, kept?.sent) : identityPieces,
      opening: kept ? '' : template.open(head, nonce, headTags),
    }
  }

  /**
   * The coding of a streamed document that begins with a kept document (a partly prerendered page's shell, whose
   * holes the render resumes): gzip in pieces after the kept parts' gzip start, with this request's nonce and head
   * tags in between; otherwise the kept bytes with them are the stream's opening.
   */
  keptStreamCoding(request: FastifyRequest, document: KeptDocument, headTags: string): StreamCoding {
    const coding = this.codingFor(request, 'streamedDocument')
    const nonce = request.cspNonce
    const tags = headTags ? Buffer.from(headTags) : noHeadTags
    if (coding !== 'gzip') return { coding, pieces: identityPieces, opening: documentBytes(document, nonce, tags) }
    // The pieces refer back to the end of the kept bytes only: no copy of the whole document per response.
    const sent = documentTail(document, nonce, tags, compression.pieceDictionaryBytes)
    return { coding, pieces: gzipPieces(this.#bytes.gzipStart(document, nonce, tags), sent), opening: '' }
  }

  /** A streamed document in the coding `streamCoding` chose; `abort` stops its render when the client goes. */
  sendStream(
    request: FastifyRequest,
    reply: FastifyReply,
    coding: Coding,
    stream: Readable,
    abort: (reason: Error) => void,
  ): FastifyReply {
    reply.raw.once('close', function abortWhenClientGone() {
      if (reply.raw.writableFinished) return
      request.log.debug('render aborted: the client closed the connection')
      abort(new ClientGoneError('the client closed the connection'))
    })
    this.varyByCoding(reply)
    // The last piece and the end of the chunked body in one write to the socket, not two: corked from the last piece
    // on, until `end()` uncorks it (a compressor's output, brotli or zstd, ends later and goes as it comes).
    if (coding === 'identity' || coding === 'gzip') stream.once(lastPieceEvent, () => reply.raw.cork())
    if (coding === 'identity') return reply.send(stream)
    return reply.header('content-encoding', coding).send(coding === 'gzip' ? stream : flushedStream(stream, coding))
  }

  /**
   * What plugins/compression.ts compresses: an answer nobody encoded (dynamic page data, JSON errors, sitemaps), per
   * request. Undefined: it goes as it is.
   */
  compressPerRequest(request: FastifyRequest, reply: FastifyReply, body: string | Buffer): Buffer | undefined {
    this.varyByCoding(reply)
    const coding = this.codingFor(request, 'perRequest', Buffer.byteLength(body))
    if (coding === 'identity') return undefined
    reply.header('content-encoding', coding).removeHeader('content-length')
    return compressBody(body, coding, 'perRequest')
  }

  /**
   * The dictionary coding a built chunk goes in, of those it has a delta in (`offered`, smallest first), or undefined
   * (src/compression/negotiate.ts `dictionaryCoding`): named by the request and weighed at least as any other coding
   * of built assets.
   */
  dictionaryCodingFor(request: FastifyRequest, offered: readonly DictionaryCoding[]): DictionaryCoding | undefined {
    const fallbacks = compression.codingPreference.builtAsset
    return dictionaryCoding(request.headers['accept-encoding'], offered, fallbacks, this.#parsed)
  }

  /**
   * The coding a built asset goes in, of the codings written for it at build time (`variants`), in the order of
   * `compression.codingPreference.builtAsset`: identity when the request takes none of them.
   */
  builtAssetCodingFor(request: FastifyRequest, variants: Partial<Record<ContentCoding, unknown>>): Coding {
    const offered = compression.codingPreference.builtAsset.filter((coding) => variants[coding] !== undefined)
    return negotiateCoding(request.headers['accept-encoding'], offered, this.#parsed)
  }

  /** Says the answer depends on the coding the request takes: every answer the sender codes, built assets too. */
  varyByCoding(reply: FastifyReply): void {
    addVary(reply, 'accept-encoding')
  }
}

const noHeadTags = Buffer.alloc(0)

/** Bytes whose length is known: Content-Length with them, and their coding's Content-Encoding. */
function sendBytes(reply: FastifyReply, bytes: Buffer, coding: Coding): FastifyReply {
  if (coding !== 'identity') reply.header('content-encoding', coding)
  return reply.header('content-length', bytes.length).send(bytes)
}

/**
 * A 304: no body, so no `Content-Type` (RFC 9110 15.4.5 lists what a 304 repeats: Cache-Control, ETag, Vary and the
 * like, not the type of a body it does not carry); the route may have typed the 200 it would have been.
 */
function notModified(reply: FastifyReply): FastifyReply {
  reply.removeHeader('content-type')
  return reply.code(304).send()
}
