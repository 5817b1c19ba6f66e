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
import { gzipPieces, identityPieces, lastPieceEvent, PieceStream, type PieceCoding } from '../compression/pieces.ts'
import { addVary } from '../compression/vary.ts'
import { encodedEtag, matchesAnyEncoding } from '../etag.ts'
import type { KeptDocument } from '../render/document-cache.ts'
import { ClientGoneError, type DocumentBody, type Prelude, type StreamedDocument } from '../render/stream.ts'
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

/** A streamed document framed for the wire: its coding, and the stream of its pieces in that coding. */
export interface FramedStream {
  coding: Coding
  stream: PieceStream
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
   * Frames a streamed document (src/render/stream.ts) for the wire, in the coding negotiated for it: its prelude,
   * React's body and its closing as pieces, whatever React wrote in one turn one piece (src/compression/pieces.ts).
   * gzip: in pieces after the prelude's gzip start, compressed once and kept (a template's opening per head,
   * src/delivery/kept-openings.ts; a kept shell as a kept document is), with this request's nonce and head tags
   * in between; brotli and zstd: the pieces as they are, through a compressor flushed per piece (`sendStream`).
   */
  frameStream(request: FastifyRequest, document: StreamedDocument, headTags: string): FramedStream {
    const coding = this.codingFor(request, 'streamedDocument')
    const { pieces, opening } = this.#framing(coding, request.cspNonce, document.prelude, headTags)
    const stream = new PieceStream({ coding: pieces, opening, closing: document.closing })
    // A kept shell goes out now, in this turn: its first byte waits neither for request-time data nor for React.
    if (document.prelude.type === 'shell') stream.sendPending()
    document.body.pipe(stream)
    return { coding, stream }
  }

  /** The pieces' coding of a stream and the opening left for it to write ('' where a kept gzip start holds it). */
  #framing(
    coding: Coding,
    nonce: string | undefined,
    prelude: Prelude,
    headTags: string,
  ): { pieces: PieceCoding; opening: string | Buffer } {
    if (prelude.type === 'template') {
      const { template, head } = prelude
      const kept = coding === 'gzip' ? this.#openings.gzipStart(template, head, nonce, headTags) : undefined
      if (kept) return { pieces: gzipPieces(kept.start, kept.sent), opening: '' }
      const opening = template.open(head, nonce, headTags)
      return { pieces: coding === 'gzip' ? gzipPieces() : identityPieces, opening }
    }
    const tags = headTags ? Buffer.from(headTags) : noHeadTags
    if (coding !== 'gzip') return { pieces: identityPieces, opening: documentBytes(prelude.document, nonce, tags) }
    // The pieces refer back to the end of the kept bytes only: no copy of the whole document per response.
    const sent = documentTail(prelude.document, nonce, tags, compression.pieceDictionaryBytes)
    return { pieces: gzipPieces(this.#bytes.gzipStart(prelude.document, nonce, tags), sent), opening: '' }
  }

  /** A framed document in the coding `frameStream` chose; its render is aborted when the client goes. */
  sendStream(request: FastifyRequest, reply: FastifyReply, framed: FramedStream, body: DocumentBody): FastifyReply {
    const { coding, stream } = framed
    reply.raw.once('close', function abortWhenClientGone() {
      if (reply.raw.writableFinished) return
      request.log.debug('render aborted: the client closed the connection')
      body.abort(new ClientGoneError('the client closed the connection'))
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
