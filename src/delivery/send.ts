import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Readable } from 'node:stream'
import { caches } from '../../config/caches.ts'
import { compression } from '../../config/compression.ts'
import { compressBody, flushedStream } from '../compression/compress.ts'
import { identityAcceptable, negotiateCoding, parsedAcceptEncoding, type Coding, type ContentCoding, type ParsedAcceptEncoding } from '../compression/negotiate.ts'
import { gzipPieces, identityPieces, type PieceCoding } from '../compression/pieces.ts'
import { addVary } from '../compression/vary.ts'
import { encodedEtag, matchesAnyEncoding, strongEtag } from '../etag.ts'
import { documentBytes, gzippedDocumentBytes, zstdDocumentBytes, type KeptDocument } from '../render/document-cache.ts'
import { KeptOpenings } from '../render/kept-openings.ts'
import { ClientGoneError } from '../render/stream.ts'
import type { DocumentHead, DocumentTemplate } from '../render/template.ts'

/** The kinds of answer the sender codes, each with its order among codings a client weighs alike (config/compression.ts). */
export type AnswerKind = keyof typeof compression.codingPreference

/** A body kept for the deployment whole (a static page's data), with its strong ETag and its encodings, each made once. */
export interface KeptBody {
  body: string
  etag: string
  encoded: Map<ContentCoding, Buffer>
}

/** What the route says of a kept body's answer: its status, Cache-Control and type (none of which a 304 repeats but the first two). */
export interface AnswerHead {
  statusCode: number
  cacheControl: string
  type: string
}

/** How a streamed document goes on the wire: its coding, the pieces' coding, and the opening left for the stream to write. */
export interface StreamCoding {
  coding: Coding
  pieces: PieceCoding
  /** The document's opening as text, or '' where a kept opening already starts the pieces (gzip). */
  opening: string
}

/**
 * The one place Courier decides how the bytes of an answer go on the wire (docs/compression.md "One seam for the
 * bytes on the wire"): it negotiates the coding of every kind of answer once per response, from `Accept-Encoding`,
 * and sets `Content-Encoding`, `Vary`, `ETag` (where the answer has one) and `Content-Length` (where the length is
 * known) for kept documents, streamed documents (and their kept openings), kept page data and the per-request
 * compression of plugins/compression.ts. It holds the caches of this (parsed headers, kept openings): `buildApp`
 * makes one per instance.
 */
export class Sender {
  readonly #parsed: ParsedAcceptEncoding
  readonly #openings: KeptOpenings

  constructor(bounds: { acceptEncoding: typeof caches.acceptEncoding; keptOpenings: typeof caches.keptOpenings } = caches) {
    this.#parsed = parsedAcceptEncoding(bounds.acceptEncoding)
    this.#openings = new KeptOpenings(bounds.keptOpenings)
  }

  /**
   * The coding of an answer of `kind`, `byteLength` bytes long when known: none below `compression.minBytes` (unless
   * the client refuses identity), else as negotiated among the kind's codings.
   */
  codingFor(request: FastifyRequest, kind: AnswerKind, byteLength?: number): Coding {
    const header = request.headers['accept-encoding']
    if (byteLength !== undefined && byteLength < compression.minBytes && identityAcceptable(header, this.#parsed)) return 'identity'
    return negotiateCoding(header, compression.codingPreference[kind], this.#parsed)
  }

  /**
   * A kept document with this request's insertions: its nonce and its head tags (the `traceparent` meta). gzip and
   * zstd: the parts were compressed once, so a response costs a CRC (gzip) or a copy (zstd); brotli, where only it will
   * do, is a compression per response.
   */
  sendKeptDocument(request: FastifyRequest, reply: FastifyReply, document: KeptDocument, headTags: string): FastifyReply {
    addVary(reply, 'accept-encoding')
    const tags = headTags ? Buffer.from(headTags, 'latin1') : undefined
    const nonce = request.cspNonce
    const coding = this.codingFor(request, 'keptDocument')
    // A document sent as it was kept, with nothing of the request in it (a path the request filter leaves without a
    // nonce, as /faq, and no per-request head tags), is the same bytes for everyone on every instance: it gets a
    // strong ETag, one per coding, and 304s, as kept page data does. A nonce-bearing document never does.
    if (nonce === undefined && tags === undefined && reply.statusCode === 200) {
      document.etag ??= strongEtag(Buffer.concat(document.parts))
      reply.header('etag', encodedEtag(document.etag, coding))
      if (matchesAnyEncoding(request.headers['if-none-match'], document.etag)) return reply.code(304).send()
    }
    if (coding === 'gzip') return sendBytes(reply, gzippedDocumentBytes(document, nonce, tags), coding)
    if (coding === 'zstd') return sendBytes(reply, zstdDocumentBytes(document, nonce, tags), coding)
    const plain = documentBytes(document, nonce, tags)
    if (coding === 'br' && this.codingFor(request, 'perRequest', plain.length) === 'br') {
      return sendBytes(reply, compressBody(plain, 'br', 'perRequest'), 'br')
    }
    return sendBytes(reply, plain, 'identity')
  }

  /**
   * A body kept whole for the deployment: its encoding compressed once per coding (the best each does), its ETag that
   * encoding's own; 304 when If-None-Match names any encoding of it.
   */
  sendKeptBody(request: FastifyRequest, reply: FastifyReply, kept: KeptBody, head: AnswerHead): FastifyReply {
    const coding = this.codingFor(request, 'pageData', Buffer.byteLength(kept.body))
    addVary(reply, 'accept-encoding')
    reply.header('etag', encodedEtag(kept.etag, coding))
    if (matchesAnyEncoding(request.headers['if-none-match'], kept.etag)) return reply.code(304).header('cache-control', head.cacheControl).send()
    if (coding !== 'identity') reply.header('content-encoding', coding)
    reply.code(head.statusCode).header('cache-control', head.cacheControl).type(head.type)
    if (coding === 'identity') return reply.send(kept.body)
    let encoded = kept.encoded.get(coding)
    if (!encoded) {
      encoded = compressBody(kept.body, coding, 'once')
      kept.encoded.set(coding, encoded)
    }
    return sendBytes(reply, encoded, coding)
  }

  /**
   * The coding of a streamed document, chosen before its render starts: gzip in pieces as React writes them, its
   * opening compressed once and kept where it can be (src/render/kept-openings.ts); brotli or zstd through a
   * compressor flushed once per piece (`sendStream`).
   */
  streamCoding(request: FastifyRequest, template: DocumentTemplate, head: DocumentHead, headTags: string): StreamCoding {
    const coding = this.codingFor(request, 'streamedDocument')
    const nonce = request.cspNonce
    const kept = coding === 'gzip' ? this.#openings.gzipStart(template, head, nonce, headTags) : undefined
    return {
      coding,
      pieces: coding === 'gzip' ? gzipPieces(kept?.start, kept?.sent) : identityPieces,
      opening: kept ? '' : template.open(head, nonce, headTags),
    }
  }

  /** A streamed document in the coding `streamCoding` chose; `abort` stops its render when the client goes. */
  sendStream(request: FastifyRequest, reply: FastifyReply, coding: Coding, stream: Readable, abort: (reason: Error) => void): FastifyReply {
    reply.raw.once('close', function abortWhenClientGone() {
      if (reply.raw.writableFinished) return
      request.log.debug('render aborted: the client closed the connection')
      abort(new ClientGoneError('the client closed the connection'))
    })
    addVary(reply, 'accept-encoding')
    if (coding === 'identity') return reply.send(stream)
    return reply.header('content-encoding', coding).send(coding === 'gzip' ? stream : flushedStream(stream, coding))
  }

  /**
   * What plugins/compression.ts compresses: an answer nobody encoded (dynamic page data, JSON errors, sitemaps), per
   * request. Undefined: it goes as it is.
   */
  compressPerRequest(request: FastifyRequest, reply: FastifyReply, body: string | Buffer): Buffer | undefined {
    addVary(reply, 'accept-encoding')
    const coding = this.codingFor(request, 'perRequest', Buffer.byteLength(body))
    if (coding === 'identity') return undefined
    reply.header('content-encoding', coding).removeHeader('content-length')
    return compressBody(body, coding, 'perRequest')
  }
}

/** Bytes whose length is known: Content-Length with them, and their coding's Content-Encoding. */
function sendBytes(reply: FastifyReply, bytes: Buffer, coding: Coding): FastifyReply {
  if (coding !== 'identity') reply.header('content-encoding', coding)
  return reply.header('content-length', bytes.length).send(bytes)
}
