import type { Readable } from 'node:stream'
import { brotliCompressSync, constants, createBrotliCompress, gzipSync } from 'node:zlib'
import { compression } from '../../config/compression.ts'
import { identityAcceptable, negotiateCoding, type Coding, type ContentCoding } from './negotiate.ts'

/** The server's preference between codings a client weighs alike: brotli is smaller for the same text. */
export const preferredCodings: readonly ContentCoding[] = ['br', 'gzip']

/** For what is compressed per response in pieces (kept documents, streamed ones): gzip first, see pieces.ts. */
export const pieceCodings: readonly ContentCoding[] = ['gzip', 'br']

/** A body compressed in one go: per request (`perRequest`) or once, to keep (the best ratio). */
export function compressBody(body: Buffer | string, coding: ContentCoding, effort: 'perRequest' | 'once'): Buffer {
  if (coding === 'br') {
    const quality = effort === 'once' ? compression.brotliQualityOnce : compression.brotliQualityPerRequest
    return brotliCompressSync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: quality,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(body),
      },
    })
  }
  return gzipSync(body, { level: effort === 'once' ? compression.gzipLevelOnce : compression.gzipLevelPerRequest })
}

/**
 * A streamed document in brotli, for a client that takes brotli and not gzip (the renderer sends gzip in pieces,
 * src/compression/pieces.ts). Brotli streams cannot be joined from independent pieces: this is an asynchronous brotli
 * stream with a small window, flushed once per turn of the event loop. If the client goes, the source is destroyed
 * too (the renderer aborts the render on the connection's close).
 */
export function brotliStream(source: Readable): Readable {
  const brotli = createBrotliCompress({
    params: {
      [constants.BROTLI_PARAM_QUALITY]: compression.brotliQualityPerRequest,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      // 64 KiB: a document's reach; the default 4 MiB window cost megabytes per concurrent response.
      [constants.BROTLI_PARAM_LGWIN]: 16,
    },
  })
  let flushScheduled = false
  source.on('data', function compressChunk(chunk: Buffer | string) {
    if (!brotli.write(chunk)) source.pause()
    if (flushScheduled) return
    flushScheduled = true
    setImmediate(() => {
      flushScheduled = false
      if (!brotli.destroyed && !brotli.writableEnded) brotli.flush(constants.BROTLI_OPERATION_FLUSH)
    })
  })
  brotli.on('drain', () => source.resume())
  source.once('end', () => brotli.end())
  source.once('error', (error) => brotli.destroy(error))
  brotli.once('close', () => {
    if (!source.destroyed) source.destroy()
  })
  return brotli
}

/**
 * The coding for a body of `byteLength` bytes: none below `compression.minBytes` (unless the client refuses identity),
 * else as negotiated among `offered`.
 */
export function codingForBody(acceptEncoding: string | undefined, byteLength: number, offered: readonly ContentCoding[]): Coding {
  if (byteLength < compression.minBytes && identityAcceptable(acceptEncoding)) return 'identity'
  return negotiateCoding(acceptEncoding, offered)
}
