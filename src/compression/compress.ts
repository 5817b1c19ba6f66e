import type { Readable } from 'node:stream'
import {
  brotliCompressSync,
  constants,
  createBrotliCompress,
  createZstdCompress,
  gzipSync,
  zstdCompressSync,
  type BrotliCompress,
  type ZstdCompress,
} from 'node:zlib'
import { compression } from '../../config/compression.ts'
import type { ContentCoding } from './negotiate.ts'

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
  if (coding === 'zstd') {
    const level = effort === 'once' ? compression.zstdLevelOnce : compression.zstdLevelPerRequest
    return zstdCompressSync(body, {
      params: {
        [constants.ZSTD_c_compressionLevel]: level,
        // The size goes in the frame header, and zstd sizes its window to it.
        [constants.ZSTD_c_contentSizeFlag]: 1,
      },
      pledgedSrcSize: Buffer.byteLength(body),
    })
  }
  return gzipSync(body, { level: effort === 'once' ? compression.gzipLevelOnce : compression.gzipLevelPerRequest })
}

/**
 * A streamed document in brotli or zstd, for a client that weighs one of them above gzip (the renderer sends gzip in
 * pieces, src/compression/pieces.ts). Neither can be joined from independent pieces with references between them:
 * this is an asynchronous compressor with a small window, flushed once per turn of the event loop, so each React piece
 * reaches the browser when it is rendered. If the client goes, the source is destroyed too (the renderer aborts the
 * render on the connection's close).
 */
export function flushedStream(source: Readable, coding: 'br' | 'zstd'): Readable {
  const compressor = coding === 'br' ? brotliCompressor() : zstdCompressor()
  const flushKind = coding === 'br' ? constants.BROTLI_OPERATION_FLUSH : constants.ZSTD_e_flush
  let flushScheduled = false
  source.on('data', function compressChunk(chunk: Buffer | string) {
    if (!compressor.write(chunk)) source.pause()
    if (flushScheduled) return
    flushScheduled = true
    setImmediate(() => {
      flushScheduled = false
      if (!compressor.destroyed && !compressor.writableEnded) compressor.flush(flushKind)
    })
  })
  compressor.on('drain', () => source.resume())
  source.once('end', () => compressor.end())
  source.once('error', (error) => compressor.destroy(error))
  compressor.once('close', () => {
    if (!source.destroyed) source.destroy()
  })
  return compressor
}

function brotliCompressor(): BrotliCompress {
  return createBrotliCompress({
    params: {
      [constants.BROTLI_PARAM_QUALITY]: compression.brotliQualityPerRequest,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      // 64 KiB: a document's reach; the default 4 MiB window cost megabytes per concurrent response.
      [constants.BROTLI_PARAM_LGWIN]: 16,
    },
  })
}

/** zstd 3 with a 64 KiB window and small match tables: the memory a stream holds is bounded (config/compression.ts). */
function zstdCompressor(): ZstdCompress {
  return createZstdCompress({
    params: {
      [constants.ZSTD_c_compressionLevel]: compression.zstdLevelPerRequest,
      [constants.ZSTD_c_windowLog]: compression.zstdStreamWindowLog,
      [constants.ZSTD_c_hashLog]: compression.zstdStreamHashLog,
      [constants.ZSTD_c_chainLog]: compression.zstdStreamChainLog,
    },
  })
}
