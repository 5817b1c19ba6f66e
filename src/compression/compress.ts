import type { Readable } from 'node:stream'
import { brotliCompressSync, constants, createBrotliCompress, createGzip, gzipSync } from 'node:zlib'
import { compression } from '../../config/compression.ts'
import { identityAcceptable, negotiateCoding, type Coding, type ContentCoding } from './negotiate.ts'

/** The server's preference between codings a client weighs alike: brotli is smaller for the same text. */
export const preferredCodings: readonly ContentCoding[] = ['br', 'gzip']

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
 * A streamed document, compressed as it streams: whatever React wrote in one turn of the event loop is flushed to the
 * client at once (a sync flush), so the shell and each resolved boundary reach the browser when they are rendered,
 * not when the compressor's window fills. Backpressure runs through; if the client goes, the source is destroyed
 * too (the renderer aborts the render on the connection's close).
 */
export function compressStream(source: Readable, coding: ContentCoding): Readable {
  const compressor =
    coding === 'br'
      ? createBrotliCompress({
          params: {
            [constants.BROTLI_PARAM_QUALITY]: compression.brotliQualityPerRequest,
            [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          },
        })
      : createGzip({ level: compression.gzipLevelPerRequest })
  const flushKind = coding === 'br' ? constants.BROTLI_OPERATION_FLUSH : constants.Z_SYNC_FLUSH
  let flushScheduled = false
  const flush = () => {
    flushScheduled = false
    if (!compressor.destroyed && !compressor.writableEnded) compressor.flush(flushKind)
  }
  source.on('data', function compressChunk(chunk: Buffer | string) {
    if (!compressor.write(chunk)) source.pause()
    if (!flushScheduled) {
      flushScheduled = true
      setImmediate(flush)
    }
  })
  compressor.on('drain', () => source.resume())
  source.once('end', () => compressor.end())
  source.once('error', (error) => compressor.destroy(error))
  compressor.once('close', () => {
    if (!source.destroyed) source.destroy()
  })
  return compressor
}

/**
 * The coding for a body of `byteLength` bytes: none below `compression.minBytes` (unless the client refuses identity),
 * else as negotiated among `offered`.
 */
export function codingForBody(acceptEncoding: string | undefined, byteLength: number, offered: readonly ContentCoding[]): Coding {
  if (byteLength < compression.minBytes && identityAcceptable(acceptEncoding)) return 'identity'
  return negotiateCoding(acceptEncoding, offered)
}
