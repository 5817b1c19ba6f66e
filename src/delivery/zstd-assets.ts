import { readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { compression } from '../../config/compression.ts'
import { assetBase } from '../render/template.ts'

/**
 * A coded file of the build, on disk, that the sender sends (src/delivery/built-assets.ts) since @fastify/static's
 * `preCompressed` knows brotli and gzip only: a built file's `.zst`, written at build time beside it
 * (src/build/precompress.ts), or a chunk's dictionary delta (src/delivery/dictionary-assets.ts).
 */
export interface CodedFile {
  file: string
  bytes: number
  /** The media type of the file it codes. */
  type: string
}

/**
 * The `.zst` files of the client build, by the URL path of the file each codes (`/_next/static/chunks/x.js`): found
 * once, at start-up. Only files of a compressible extension count (a `.zst` of anything else is not the build's).
 */
export function findZstdAssets(clientDir: string): ReadonlyMap<string, CodedFile> {
  const assets = new Map<string, CodedFile>()
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
