import type { ReadStream } from 'node:fs'
import { mkdir, open, readdir, readFile, rename, unlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { FastifyBaseLogger } from 'fastify'

/** What the cache knows of an entry, kept in memory for every entry and written ahead of its bytes on disk. */
export interface CacheEntryMeta {
  key: string
  contentType: string
  /** `Content-Disposition` file name, e.g. `dunes.webp`. */
  filename: string
  /** Strong ETag, quotes included. */
  etag: string
  /** The max-age the entry is served with. */
  maxAgeS: number
  /** Epoch milliseconds after which the entry is stale (served, then refreshed). */
  expiresAt: number
  size: number
}

export interface CacheEntry extends CacheEntryMeta {
  /** The bytes, when small enough to keep in memory. */
  body: Buffer | undefined
  /** The file that holds the entry, and where its bytes start. */
  file: string
  bodyOffset: number
  /** Response headers, computed once by the first response that sends the entry. */
  headers?: Readonly<Record<string, string>>
}

export interface DiskImageCacheOptions {
  dir: string
  maxBytes: number
  memoryEntryMaxBytes: number
  memoryMaxBytes: number
  log: FastifyBaseLogger
}

const entrySuffix = '.entry'
const keyPattern = /^[a-f0-9]{64}$/

/**
 * The optimizer's cache: one file per entry in `dir` (`<key>.entry`: a 4-byte length, the JSON meta, the bytes),
 * an index in memory in least-recently-used order, and the bytes of small entries in memory too. Capped in bytes:
 * adding an entry evicts the least recently used ones. Disk failures are logged and never fail a response.
 */
export class DiskImageCache {
  readonly #entries = new Map<string, CacheEntry>()
  readonly #options: DiskImageCacheOptions
  #bytes = 0
  #memoryBytes = 0
  /** The kind of the last failure reported per operation (see #reportFailure). */
  readonly #reported = new Map<'read' | 'write', string>()

  constructor(options: DiskImageCacheOptions) {
    this.#options = options
  }

  /** Reads the index of the entries already on disk (oldest first, so they are evicted first). */
  async open(): Promise<void> {
    const { dir, log } = this.#options
    await mkdir(dir, { recursive: true })
    const loaded: Array<{ entry: CacheEntry; mtimeMs: number }> = []
    for (const name of await readdir(dir)) {
      if (!name.endsWith(entrySuffix)) continue
      const file = path.join(dir, name)
      try {
        const handle = await open(file, 'r')
        try {
          const stats = await handle.stat()
          const lengthBytes = Buffer.alloc(4)
          await handle.read(lengthBytes, 0, 4, 0)
          const metaLength = lengthBytes.readUInt32BE(0)
          if (metaLength > 4096) throw new Error('meta too long')
          const metaBytes = Buffer.alloc(metaLength)
          await handle.read(metaBytes, 0, metaLength, 4)
          const meta = JSON.parse(metaBytes.toString('utf8')) as CacheEntryMeta
          if (
            !keyPattern.test(meta.key) ||
            `${meta.key}${entrySuffix}` !== name ||
            stats.size !== 4 + metaLength + meta.size
          ) {
            throw new Error('entry does not match its file')
          }
          loaded.push({ entry: { ...meta, body: undefined, file, bodyOffset: 4 + metaLength }, mtimeMs: stats.mtimeMs })
        } finally {
          await handle.close()
        }
      } catch (error) {
        log.warn({ err: error, file }, 'image cache entry unreadable')
        await unlink(file).catch(() => undefined)
      }
    }
    loaded.sort((a, b) => a.mtimeMs - b.mtimeMs)
    for (const { entry } of loaded) this.#index(entry)
    await this.#evict()
  }

  /** The entry under `key`, now the most recently used; undefined when there is none. */
  get(key: string): CacheEntry | undefined {
    const entry = this.#entries.get(key)
    if (!entry) return undefined
    this.#entries.delete(key)
    this.#entries.set(key, entry)
    return entry
  }

  /**
   * The entry's bytes: the Buffer in memory; for a small entry only on disk (read at start-up), its file read once
   * and kept in memory; otherwise a stream of its file. Undefined when the file is gone (the entry leaves the index).
   */
  async body(entry: CacheEntry): Promise<Buffer | ReadStream | undefined> {
    if (entry.body) return entry.body
    const { memoryEntryMaxBytes, memoryMaxBytes } = this.#options
    try {
      if (entry.size > memoryEntryMaxBytes || this.#memoryBytes + entry.size > memoryMaxBytes) {
        // Opened here, so a file gone from disk (the folder removed) is a miss, not a stream failing mid-response.
        const handle = await open(entry.file, 'r')
        this.#reported.delete('read')
        return handle.createReadStream({ start: entry.bodyOffset })
      }
      const bytes = (await readFile(entry.file)).subarray(entry.bodyOffset)
      if (bytes.length !== entry.size) throw new Error(`expected ${entry.size} bytes, found ${bytes.length}`)
      if (this.#entries.get(entry.key) === entry && !entry.body) this.#keepInMemory(entry, bytes)
      this.#reported.delete('read')
      return bytes
    } catch (error) {
      this.#reportFailure('read', error, { file: entry.file }, 'image cache entry unreadable')
      if (this.#entries.get(entry.key) === entry) this.#remove(entry.key)
      return undefined
    }
  }

  /**
   * Adds (or replaces) an entry. The bytes go to a temporary file renamed into place, so a reader never sees half an
   * entry. Returns the entry, in the index even when the disk write failed (then from memory only, until evicted).
   */
  async put(meta: CacheEntryMeta, bytes: Buffer): Promise<CacheEntry | undefined> {
    const { dir, maxBytes } = this.#options
    if (meta.size > maxBytes) return undefined
    const metaBytes = Buffer.from(JSON.stringify(meta), 'utf8')
    const length = Buffer.alloc(4)
    length.writeUInt32BE(metaBytes.length, 0)
    const file = path.join(dir, `${meta.key}${entrySuffix}`)
    const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
    const contents = Buffer.concat([length, metaBytes, bytes])
    try {
      try {
        await writeFile(temporary, contents)
      } catch (error) {
        // The folder was removed while serving: make it again, once.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
        await mkdir(dir, { recursive: true })
        await writeFile(temporary, contents)
      }
      await rename(temporary, file)
    } catch (error) {
      this.#reportFailure('write', error, { key: meta.key, dir }, 'image cache write failed')
      await unlink(temporary).catch(() => undefined)
      return undefined
    }
    this.#reported.delete('write')
    this.#remove(meta.key)
    const entry: CacheEntry = { ...meta, body: undefined, file, bodyOffset: 4 + metaBytes.length }
    this.#keepInMemory(entry, bytes)
    this.#index(entry)
    // Resolves once the evicted files are gone too, so the folder agrees with the index when a put is over.
    await this.#evict()
    return this.#entries.get(meta.key)
  }

  /**
   * A disk failure at warn level once per kind (operation and error code) until that operation works again, then at
   * debug level: a read-only or full folder fails every request, and one line says so.
   */
  #reportFailure(operation: 'read' | 'write', error: unknown, fields: Record<string, unknown>, message: string): void {
    const kind = `${operation}:${(error as NodeJS.ErrnoException).code ?? 'other'}`
    const first = this.#reported.get(operation) !== kind
    this.#reported.set(operation, kind)
    if (first) this.#options.log.warn({ err: error, ...fields }, message)
    else this.#options.log.debug({ err: error, ...fields }, message)
  }

  #keepInMemory(entry: CacheEntry, bytes: Buffer): void {
    const { memoryEntryMaxBytes, memoryMaxBytes } = this.#options
    if (bytes.length > memoryEntryMaxBytes || this.#memoryBytes + bytes.length > memoryMaxBytes) return
    entry.body = bytes
    this.#memoryBytes += bytes.length
  }

  #index(entry: CacheEntry): void {
    this.#entries.set(entry.key, entry)
    this.#bytes += entry.size
  }

  #remove(key: string): CacheEntry | undefined {
    const entry = this.#entries.get(key)
    if (!entry) return undefined
    this.#entries.delete(key)
    this.#bytes -= entry.size
    if (entry.body) this.#memoryBytes -= entry.body.length
    return entry
  }

  /** Drops the least recently used entries until the cache fits its cap, from the index at once, then from disk. */
  async #evict(): Promise<void> {
    const { maxBytes, log } = this.#options
    const unlinks: Promise<void>[] = []
    for (const key of this.#entries.keys()) {
      if (this.#bytes <= maxBytes) break
      const entry = this.#remove(key)!
      log.debug({ key, size: entry.size }, 'image cache entry evicted')
      unlinks.push(
        unlink(entry.file).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') log.warn({ err: error, file: entry.file }, 'image cache eviction failed')
        }),
      )
    }
    await Promise.all(unlinks)
  }
}
