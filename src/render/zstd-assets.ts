import { createReadStream, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { compression } from '../../config/compression.ts'
import { negotiateCoding } from '../compression/negotiate.ts'
import { addVary } from '../compression/vary.ts'
import { immutableAssetCacheControl } from '../../config/client-bundle.ts'
import { setChunkHeaders } from './dictionary-assets.ts'
import { assetBase } from './template.ts'
import { pathOf } from '../request-path.ts'

/** A built file's `.zst`, written at build time beside it (src/build/precompress.ts). */
export interface ZstdAsset {
  /** The `.zst` on disk. */
  file: string
  bytes: number
  /** The media type of the file it codes. */
  type: string
}

/**
 * The `.zst` files of the client build, by the URL path of the file each codes (`/_next/static/chunks/x.js`): found
 * once, at start-up. Only files of a compressible extension count (a `.zst` of anything else is not the build's).
 */
export function findZstdAssets(clientDir: string): ReadonlyMap<string, ZstdAsset> {
  const assets = new Map<string, ZstdAsset>()
  let names: string[]
  try {
    names = readdirSync(clientDir, { recursive: true, encoding: 'utf8' })
  } catch {
    return assets
  }
  for (const name of names) {
    if (!name.endsWith('.zst')) continue
    const coded = name.slice(0, -'.zst'.length)
    const type = compression.precompressedTypes[path.extname(coded)]
    if (!type || coded.split(path.sep).some((segment) => segment.startsWith('.'))) continue
    const file = path.join(clientDir, name)
    assets.set(`${assetBase}${coded.split(path.sep).join('/')}`, { file, bytes: statSync(file).size, type })
  }
  return assets
}

/**
 * Serves a built file's `.zst` where the client's Accept-Encoding makes zstd the coding for it (the order of
 * `compression.codingPreference.builtAsset` among codings weighed alike): @fastify/static's `preCompressed` knows
 * brotli and gzip only, and answers every other request as before. The answer has the headers @fastify/static gives a
 * `.br` (type, year-long immutable Cache-Control, `Vary: accept-encoding`, Content-Length), without byte ranges.
 * A preHandler of the asset routes: every hook before it runs as for any asset.
 */
export function zstdAssetHandler(assets: ReadonlyMap<string, ZstdAsset>) {
  return function sendZstdAsset(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) {
    if (!request.url.startsWith(assetBase) || (request.method !== 'GET' && request.method !== 'HEAD')) return done()
    const asset = assets.get(pathOf(request.url))
    if (!asset) return done()
    if (negotiateCoding(request.headers['accept-encoding'], compression.codingPreference.builtAsset) !== 'zstd') return done()
    reply.code(200).type(asset.type).header('cache-control', immutableAssetCacheControl)
    setChunkHeaders(reply, request.url)
    addVary(reply, 'accept-encoding')
    reply.header('content-encoding', 'zstd').header('content-length', asset.bytes)
    reply.send(request.method === 'HEAD' ? undefined : createReadStream(asset.file))
  }
}
