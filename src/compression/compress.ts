import type { Readable } from 'node:stream'
import {
  brotliCompress,
  brotliCompressSync,
  constants,
  createBrotliCompress,
  createZstdCompress,
  gzip,
  gzipSync,
  zstdCompress,
  zstdCompressSync,
  type BrotliCompress,
  type BrotliOptions,
  type ZlibOptions,
  type ZstdOptions,
  type ZstdCompress,
} from 'node:zlib'
import { compression } from '../../config/compression.ts'
import type { ContentCoding } from './negotiate.ts'

type Effort = 'perRequest' | 'once'

function brotliOptions(effort: Effort, size: number): BrotliOptions {
  const quality = effort === 'once' ? compression.brotliQualityOnce : compression.brotliQualityPerRequest
  return {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: quality,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: size,
    },
  }
}

function zstdOptions(effort: Effort, size: number): ZstdOptions {
  const level = effort === 'once' ? compression.zstdLevelOnce : compression.zstdLevelPerRequest
  // The size goes in the frame header, and zstd sizes its window to it.
  return {
    params: { [constants.ZSTD_c_compressionLevel]: level, [constants.ZSTD_c_contentSizeFlag]: 1 },
    pledgedSrcSize: size,
  }
}

function gzipOptions(effort: Effort): ZlibOptions {
  return { level: effort === 'once' ? compression.gzipLevelOnce : compression.gzipLevelPerRequest }
}

/** A body compressed in one go, on the event loop: per request (`perRequest`) or once, to keep (the best ratio). */
export function compressBody(body: Buffer | string, coding: ContentCoding, effort: Effort): Buffer {
  const size = Buffer.byteLength(body)
  if (coding === 'br') return brotliCompressSync(body, brotliOptions(effort, size))
  if (coding === 'zstd') return zstdCompressSync(body, zstdOptions(effort, size))
  return gzipSync(body, gzipOptions(effort))
}

// `node:util` as the module itself: an ES import builds its namespace from every export and so loads what its lazy
// getters hold (its argument parser, its diff, ...), as `src/runtime/node-http.ts` says of `node:http`.
const { promisify } = process.getBuiltinModule('node:util')
const brotliOffLoop = promisify(brotliCompress)
const zstdOffLoop = promisify(zstdCompress)
const gzipOffLoop = promisify(gzip)

/**
 * A body compressed once, to keep, at the best ratio, on libuv's thread pool: brotli at 11 takes about 8 ms for a
 * guide's page data, which a crawl of thousands of pages would otherwise pay on the event loop, page after page.
 */
export function compressOnceOffLoop(body: string, coding: ContentCoding): Promise<Buffer> {
  const size = Buffer.byteLength(body)
  if (coding === 'br') return brotliOffLoop(body, brotliOptions('once', size))
  if (coding === 'zstd') return zstdOffLoop(body, zstdOptions('once', size))
  return gzipOffLoop(body, gzipOptions('once'))
}

/**
 * A streamed document in brotli or zstd, for a client that weighs one of them above gzip (the sender frames gzip in
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
