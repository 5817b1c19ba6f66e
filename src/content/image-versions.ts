import { createHash } from 'node:crypto'
import type { Readable } from 'node:stream'
import { caches, type CacheBounds } from '../../config/caches.ts'
import { BoundedCache } from '../bounded-cache.ts'
import { errors } from '../errors.ts'
import { strongEtagOf } from '../etag.ts'
import { SingleFlight } from '../toolbox/single-flight.ts'
import type { ContentFiles, OpenedFile } from './content-files.ts'

export interface ImageVersionsLimits {
  /** A larger file is not served (404) nor drawn with its size (config/images.ts maxSourceBytes). */
  maxBytes: number
  /** config/content.ts contentImages: the stream's reads, and the header reads of a pixel size. */
  streamChunkBytes: number
  headerBytes: number
  longHeaderBytes: number
}

/** Where an image over the limit is told, once per version (a pino logger in the app). */
interface ImageVersionsLog {
  warn(fields: Record<string, unknown>, message: string): void
}

export interface PixelSize {
  width: number
  height: number
}

/** An image of the content opened to be answered: its size, its tag (kept per version), its bytes as a stream. */
export interface OpenedImage {
  readonly bytes: number
  /** Its strong ETag: the hash of its bytes, read once per version of the file. */
  etag(): Promise<string>
  /** Its bytes, read as the client takes them; the descriptor is closed at the end, on a failure or when it leaves. */
  stream(): Readable
  /** Closes the descriptor, for an answer without the bytes (HEAD, 304, a failure). */
  close(): Promise<void>
}

/** What one version of an image says of itself, learnt once. `pixels` null: its header does not say. */
interface VersionFacts {
  version: string
  etag?: string
  pixels?: PixelSize | null
  tooLarge?: boolean
}

/**
 * The images of the content (`images/<name>`, docs/content.md "Images of the content") by version: each request opens
 * the file (its rules: regular files only, no link out, bounded reads in the `images` lane), and what its version
 * (`fstat`: device, inode, size, times) says is learnt once and kept (config/caches.ts contentImageVersions): its
 * ETag, a hash of its bytes, for HEAD and revalidations that then read nothing more; its pixel size, from the first
 * bytes only. A file over the limit is left out (a 404), with one warn line per version.
 */
export class ImageVersions {
  readonly #files: ContentFiles
  readonly #limits: ImageVersionsLimits
  readonly #log: ImageVersionsLog | undefined
  readonly #facts: BoundedCache<string, VersionFacts>
  readonly #hashing = new SingleFlight<string, string>()
  readonly #sizing = new SingleFlight<string, PixelSize | null>()

  constructor(
    files: ContentFiles,
    limits: ImageVersionsLimits,
    log: ImageVersionsLog | undefined,
    bounds: CacheBounds = caches.contentImageVersions,
  ) {
    this.#files = files
    this.#limits = limits
    this.#log = log
    this.#facts = new BoundedCache(bounds, (facts, file) => 2 * (file.length + facts.version.length) + 128)
  }

  /** `file` (relative to CONTENT_DIR) opened to be answered; undefined when it is not there, not content or too large. */
  async open(file: string): Promise<OpenedImage | undefined> {
    const opened = await this.#open(file)
    if (!opened) return undefined
    const { facts } = opened
    return {
      bytes: opened.file.size,
      etag: async () => {
        if (facts.etag !== undefined) return facts.etag
        const key = `${file}\0${facts.version}`
        facts.etag = await this.#hashing.run(key, () => hashOf(file, opened.file, this.#limits.streamChunkBytes))
        return facts.etag
      },
      stream: () => opened.file.stream(this.#limits.streamChunkBytes),
      close: () => opened.file.close(),
    }
  }

  /** The pixel size of `file` from its header, read once per version; undefined when it has none to give. */
  async pixelSize(file: string): Promise<PixelSize | undefined> {
    const opened = await this.#open(file)
    if (!opened) return undefined
    const { facts } = opened
    try {
      if (facts.pixels === undefined) {
        const key = `${file}\0${facts.version}`
        facts.pixels = await this.#sizing.run(key, () => this.#readPixelSize(opened.file))
      }
      return facts.pixels ?? undefined
    } finally {
      await opened.file.close()
    }
  }

  /** The file opened and the facts of its version (new ones when it changed); none when over the limit. */
  async #open(file: string): Promise<{ file: OpenedFile; facts: VersionFacts } | undefined> {
    const opened = await this.#files.open(file, 'images')
    if (!opened) return undefined
    let facts = this.#facts.get(file)
    if (facts?.version !== opened.version) {
      facts = { version: opened.version }
      this.#facts.set(file, facts)
    }
    if (opened.size <= this.#limits.maxBytes) return { file: opened, facts }
    if (!facts.tooLarge) {
      facts.tooLarge = true
      this.#log?.warn({ file, bytes: opened.size, maxBytes: this.#limits.maxBytes }, 'content image too large: not served')
    }
    await opened.close()
    return undefined
  }

  /** From the first `headerBytes`, then the first `longHeaderBytes`; null when neither says. */
  async #readPixelSize(file: OpenedFile): Promise<PixelSize | null> {
    for (const length of [this.#limits.headerBytes, this.#limits.longHeaderBytes]) {
      const header = await file.read(0, Math.min(length, file.size))
      const size = await pixelSizeOf(header)
      if (size || header.length >= file.size) return size
    }
    return null
  }
}

/** The strong ETag of a file's bytes (src/etag.ts), read a chunk at a time: never the whole file in memory. */
async function hashOf(name: string, file: OpenedFile, chunkBytes: number): Promise<string> {
  const hash = createHash('sha256')
  for (let position = 0; position < file.size; ) {
    const chunk = await file.read(position, Math.min(chunkBytes, file.size - position))
    if (chunk.length === 0) {
      throw new errors.ContentUnreadable(name, `shorter than the ${file.size} bytes it had when opened`)
    }
    hash.update(chunk)
    position += chunk.length
  }
  return strongEtagOf(hash)
}

/** What an image's first bytes say of its pixel size; null when they do not (not an image, or not enough of it). */
async function pixelSizeOf(header: Buffer): Promise<PixelSize | null> {
  // sharp reads the header only; it is loaded here, on the first content image, never at start-up.
  const { default: sharp } = await import('sharp')
  const { width, height } = await sharp(header)
    .metadata()
    .catch(() => ({ width: undefined, height: undefined }))
  return width && height ? { width, height } : null
}
