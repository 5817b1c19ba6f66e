import { Transform, type TransformCallback } from 'node:stream'
import { constants, crc32, deflateRawSync } from 'node:zlib'
import { compression } from '../../config/compression.ts'
import { gzipHeader, gzipTrailer, type GzipStart } from './gzip-segments.ts'

/** How the pieces of a stream go on the wire: as they are, or in a coding whose pieces can be flushed one by one. */
export interface PieceCoding {
  /** What goes before the first piece (the gzip header). */
  readonly start: Buffer | undefined
  encode(piece: Buffer): Buffer
  /** What goes after the last piece (the gzip trailer). */
  end(): Buffer | undefined
}

export const identityPieces: PieceCoding = Object.freeze({
  start: undefined,
  encode: (piece: Buffer) => piece,
  end: () => undefined,
})

/**
 * gzip, one piece at a time: each piece is raw deflate of its own, ending on a byte boundary (a sync flush of a fresh
 * compressor), so it can be sent at once and the browser decodes it at once. Compressed synchronously on the
 * request's own turn, with no compressor kept per response: no thread-pool hop and no large state per stream (an
 * asynchronous zlib stream per response cost seven times the throughput of `/status` under 50 concurrent renders).
 * Each piece takes the last bytes sent before it (`compression.pieceDictionaryBytes`) as its dictionary, so it refers
 * back to them as the decoder holds them. With `start`, the member begins with those bytes (a kept opening,
 * src/delivery/kept-openings.ts), `sent` being what they decode to.
 */
export function gzipPieces(start?: GzipStart, sent?: Buffer): PieceCoding {
  let crc = start?.crc ?? 0
  let length = start?.length ?? 0
  let behind = lastBytes(sent ?? Buffer.alloc(0))
  return {
    start: start?.bytes ?? gzipHeader,
    encode(piece) {
      crc = crc32(piece, crc)
      length += piece.length
      const options = { level: compression.gzipLevelPerRequest, finishFlush: constants.Z_SYNC_FLUSH }
      const encoded =
        behind.length === 0 ? deflateRawSync(piece, options) : deflateRawSync(piece, { ...options, dictionary: behind })
      behind = lastBytes(behind.length === 0 ? piece : Buffer.concat([behind, piece]))
      return encoded
    },
    end: () => gzipTrailer(crc, length),
  }
}

function lastBytes(bytes: Buffer): Buffer {
  const { pieceDictionaryBytes } = compression
  return bytes.length <= pieceDictionaryBytes ? bytes : bytes.subarray(bytes.length - pieceDictionaryBytes)
}

export interface PieceStreamOptions {
  coding: PieceCoding
  /** What comes first (text, or bytes made ready before): it joins the first piece. */
  opening?: string | Buffer | undefined
  /** Text that comes last, asked for when the source ends: it joins the last piece. */
  closing?: (() => string) | undefined
}

/**
 * The event a piece stream emits just before it pushes its last piece (the end follows in a later tick): the sender
 * corks the response there, so that last piece and the end of the body go to the socket in one write.
 */
export const lastPieceEvent = 'last-piece'

/**
 * A stream that sends what its source wrote in one turn of the event loop as one piece: React writes a document in
 * many small chunks, and the shell, each resolved boundary and the end each reach the browser when they are rendered,
 * in one write each and, with gzip, one compression each. The coding's start and end go out with the first and the
 * last piece.
 */
export class PieceStream extends Transform {
  readonly #coding: PieceCoding
  readonly #closing: (() => string) | undefined
  #pending: Buffer[] = []
  #scheduled = false
  #started = false

  constructor(options: PieceStreamOptions) {
    super()
    this.#coding = options.coding
    this.#closing = options.closing
    const { opening } = options
    if (opening) this.#pending.push(typeof opening === 'string' ? Buffer.from(opening) : opening)
  }

  /**
   * Sends what is pending (the opening, the coding's start) as a piece now, in this turn, rather than with what the
   * source writes next: a document whose beginning is ready before its render starts (a kept shell) goes out first.
   */
  sendPending(): void {
    this.#sendPiece(false)
  }

  override _transform(chunk: Buffer | string, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#pending.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
    if (!this.#scheduled) {
      this.#scheduled = true
      setImmediate(() => this.#sendPiece(false))
    }
    callback()
  }

  override _flush(callback: TransformCallback): void {
    const closing = this.#closing?.()
    if (closing) this.#pending.push(Buffer.from(closing))
    this.#sendPiece(true)
    callback()
  }

  #sendPiece(last: boolean): void {
    this.#scheduled = false
    if (this.destroyed) return
    const parts: Buffer[] = []
    if (!this.#started) {
      this.#started = true
      if (this.#coding.start) parts.push(this.#coding.start)
    }
    const piece = this.#pending.length === 1 ? this.#pending[0]! : Buffer.concat(this.#pending)
    this.#pending = []
    if (piece.length > 0) parts.push(this.#coding.encode(piece))
    const end = last ? this.#coding.end() : undefined
    if (end) parts.push(end)
    if (last) this.emit(lastPieceEvent)
    if (parts.length > 0) this.push(parts.length === 1 ? parts[0] : Buffer.concat(parts))
  }
}
