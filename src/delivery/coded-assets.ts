import { readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { compression } from '../../config/compression.ts'
import type { ContentCoding } from '../compression/negotiate.ts'
import { assetBase } from '../render/template.ts'

/**
 * A coded file of the build, on disk, that the sender sends (src/delivery/built-assets.ts): a built file's `.br`,
 * `.gz` or `.zst`, written at build time beside it (src/build/precompress.ts), or a chunk's dictionary delta
 * (src/delivery/dictionary-assets.ts).
 */
export interface CodedFile {
  file: string
  bytes: number
  /** The media type of the file it codes. */
  type: string
}

/** A built file's codings on disk: only those that made it smaller were written. */
export type CodedVariants = Partial<Record<ContentCoding, CodedFile>>

const codingOfSuffix: Readonly<Record<string, ContentCoding>> = { '.br': 'br', '.gz': 'gzip', '.zst': 'zstd' }

/**
 * The precompressed files of the client build, by the URL path of the file each codes (`/_next/static/chunks/x.js`):
 * found once, at start-up. Only files of a compressible extension count (a `.gz` of anything else is not the build's:
 * it is served as the file it is).
 */
export function findCodedAssets(clientDir: string): ReadonlyMap<string, CodedVariants> {
  const assets = new Map<string, CodedVariants>()
  let names: string[]
  try {
    names = readdirSync(clientDir, { recursive: true, encoding: 'utf8' })
  } catch {
    return assets
  }
  for (const name of names) {
    const coding = codingOfSuffix[path.extname(name)]
    if (!coding) continue
    const coded = name.slice(0, -path.extname(name).length)
    const type = compression.precompressedTypes[path.extname(coded)]
    if (!type || coded.split(path.sep).some((segment) => segment.startsWith('.'))) continue
    const file = path.join(clientDir, name)
    const urlPath = `${assetBase}${coded.split(path.sep).join('/')}`
    const variants = assets.get(urlPath) ?? {}
    variants[coding] = { file, bytes: statSync(file).size, type }
    assets.set(urlPath, variants)
  }
  return assets
}
