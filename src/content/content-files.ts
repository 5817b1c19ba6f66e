import type { BigIntStats } from 'node:fs'
import { open, readdir, realpath, stat, type FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { Readable } from 'node:stream'
import { errors } from '../errors.ts'
import { Semaphore } from '../toolbox/semaphore.ts'
import { withTimeOut } from '../toolbox/time-out.ts'
import {
  datedTextOf,
  fileSystemTime,
  identityOf,
  liesInside,
  openFlags,
  wholeFileReads,
  type DatedText,
  type FileIdentity,
  type RefusedReason,
} from './read-rules.ts'

export interface ContentFilesLimits {
  /** A file larger than this is refused, counted on the bytes read, not on what `stat` says. */
  maxFileBytes: number
  /** A listing or a file read that has not finished this long after it started fails the load that asked for it. */
  readTimeoutMs: number
  /** A listing or read that has waited this long for a slot fails too, without starting. */
  readWaitMs: number
  /** Listings and reads running at once; more wait (their time-out counting). */
  maxReadsInFlight: number
  /** How long the folder's resolved real path serves reads before it is resolved again. */
  rootResolvedForMs: number
}

export interface ContentReadStats {
  /** Listings and reads running now. */
  inFlight: number
  /**
   * Of those, the ones past their time-out: still holding a thread of the pool, in a system call that has not returned.
   */
  stuck: number
  /** Listings and reads that timed out since start. */
  timedOut: number
}

/**
 * Whose reads wait for a slot: the Markdown and listings a page needs, the images of the content, or the index's reads
 * of a small folder (a large one's run on a thread of their own, src/content/index-reads.ts). A freed slot goes to the
 * lane served least recently, so a stream of image reads never makes a page's Markdown wait behind all of it.
 */
export type ReadLane = 'text' | 'images' | 'index'

/**
 * A content file opened for reading, by the rules of `ContentFiles.bytes`: its descriptor, and what `fstat` said of
 * it. Every read through it is bounded as a read of the folder is; `close` (or the end of its stream) closes it.
 */
export interface OpenedFile {
  /** Its size when it was opened. */
  readonly size: number
  /** Device, inode, size, modification and change times (ns) when it was opened: a file written again, in place or
   * replaced, is another version. */
  readonly version: string
  /** At most `length` bytes from `position` (fewer at its end). */
  read(position: number, length: number): Promise<Buffer>
  /**
   * Its `size` bytes as a stream, read `chunkBytes` at a time as the reader takes them; the descriptor is closed when
   * it ends, fails or is destroyed (a client that leaves).
   */
  stream(chunkBytes: number): Readable
  /** Closes the descriptor (once; later calls wait for the same close). */
  close(): Promise<void>
}

/** A file's bytes as read, and its `fstat` then. */
interface ReadFile {
  buffer: Buffer
  stats: BigIntStats
}

/** A file of the folder opened, with its `fstat`; or why not. */
type Opening = { handle: FileHandle; stats: BigIntStats } | 'missing' | { refused: RefusedReason }

/** The file system calls content is read with: Node's, or a stand-in in a test that makes one hang. */
export interface ContentFileSystem {
  readdir: typeof readdir
  realpath: typeof realpath
  open: typeof open
  stat: typeof stat
}

const nodeFileSystem: ContentFileSystem = { readdir, realpath, open, stat }

/**
 * The files of CONTENT_DIR, read as untrusted input (docs/content.md "What a content file may be"): regular files
 * only, links followed only when they end inside the folder, at most `maxFileBytes` read from any file, and every
 * listing and read bounded in time and in number. A file system that stops answering (a stuck network mount) fails
 * the load that asked within `readTimeoutMs`, and since a time-out frees the request but not the thread of libuv's pool
 * that waits in the system call, at most `maxReadsInFlight` of those threads are ever held by content: the rest of the
 * pool stays with chunks, public files and images.
 */
export class ContentFiles {
  readonly dir: string
  readonly #limits: ContentFilesLimits
  readonly #onRefused: (file: string, reason: RefusedReason) => void
  readonly #fs: ContentFileSystem
  readonly #slots: Semaphore
  #stuck = 0
  #timedOut = 0
  /** The folder's real path, and when it was resolved (`performance.now()`). */
  #root: { path: string; at: number } | undefined

  constructor(
    dir: string,
    limits: ContentFilesLimits,
    onRefused: (file: string, reason: RefusedReason) => void,
    fileSystem: ContentFileSystem = nodeFileSystem,
  ) {
    this.dir = dir
    this.#limits = limits
    this.#onRefused = onRefused
    this.#fs = fileSystem
    this.#slots = new Semaphore({ max: limits.maxReadsInFlight })
  }

  get stats(): ContentReadStats {
    return { inFlight: this.#slots.running, stuck: this.#stuck, timedOut: this.#timedOut }
  }

  /** The names of a folder's entries that may be content (files, and links, checked when read), dotfiles left out. */
  async list(folder: string): Promise<string[]> {
    const entries = await this.#bounded(
      folder,
      () => this.#fs.readdir(path.join(this.dir, folder), { withFileTypes: true }),
    )
    const names: string[] = []
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue
      if (entry.isFile() || entry.isSymbolicLink()) names.push(entry.name)
      else if (!entry.isDirectory()) this.#onRefused(`${folder}/${entry.name}`, 'not a regular file')
    }
    return names
  }

  /**
   * A file's text (`file` relative to the folder); undefined when it is not there, or is not content: a FIFO, a device
   * or a socket, or a link that leads out of the folder (each told to `onRefused`). Larger than the limit:
   * COURIER_ERR_CONTENT_INVALID.
   */
  async text(file: string): Promise<string | undefined> {
    return (await this.bytes(file, this.#limits.maxFileBytes))?.toString('utf8')
  }

  /** A file's text by the rules of `text`, with its modification time and identity, its read in the index's lane. */
  async datedText(file: string): Promise<DatedText | undefined> {
    const read = await this.#readFile(file, this.#limits.maxFileBytes, 'index')
    return read && datedTextOf(read.buffer, read.stats)
  }

  /**
   * A file's identity by one `stat` (a link followed), in the index's lane: undefined when there is no file. Not a
   * check of what the file may be: a version unlike the one last read is read by `datedText`, which checks it.
   */
  async identity(file: string): Promise<FileIdentity | undefined> {
    const identify = async () => {
      try {
        return identityOf(await this.#fs.stat(path.join(this.dir, file), { bigint: true }))
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
        throw error
      }
    }
    return this.#bounded(file, identify, 'index')
  }

  /** A file's bytes, at most `maxBytes`, by the rules of `text`, its read waiting in `lane`. */
  async bytes(file: string, maxBytes: number, lane: ReadLane = 'text'): Promise<Buffer | undefined> {
    return (await this.#readFile(file, maxBytes, lane))?.buffer
  }

  async #readFile(file: string, maxBytes: number, lane: ReadLane): Promise<ReadFile | undefined> {
    const read = await this.#bounded(file, () => this.#readInside(file, maxBytes), lane)
    if (read === 'missing') return undefined
    if ('buffer' in read) return read
    this.#onRefused(file, read.refused)
    return undefined
  }

  /**
   * A file opened by the rules of `bytes` (undefined when it is not there or is not content), its reads waiting in
   * `lane`: the caller reads what it needs of it, and closes it.
   */
  async open(file: string, lane: ReadLane): Promise<OpenedFile | undefined> {
    let opening: Promise<Opening> | undefined
    let opened: Opening
    try {
      opened = await this.#bounded(file, () => (opening = this.#openInside(file)), lane)
    } catch (error) {
      // An opening that answers after its time-out is nobody's: its descriptor is closed then.
      void opening?.then((late) => (typeof late === 'object' && 'handle' in late ? late.handle.close() : undefined)).catch(() => undefined)
      throw error
    }
    if (opened === 'missing') return undefined
    if ('refused' in opened) {
      this.#onRefused(file, opened.refused)
      return undefined
    }
    return this.#openedFile(file, opened.handle, opened.stats, lane)
  }

  #openedFile(file: string, handle: FileHandle, stats: BigIntStats, lane: ReadLane): OpenedFile {
    let closing: Promise<void> | undefined
    const close = () => (closing ??= handle.close())
    const read = (position: number, length: number) =>
      this.#bounded(
        file,
        async () => {
          const buffer = Buffer.allocUnsafe(length)
          const { bytesRead } = await handle.read(buffer, 0, length, position)
          return buffer.subarray(0, bytesRead)
        },
        lane,
      )
    const size = Number(stats.size)
    return {
      size,
      version: identityOf(stats).version,
      read,
      stream: (chunkBytes) => fileStream(file, size, chunkBytes, read, close),
      close,
    }
  }

  /** A file's descriptor and `fstat`, or why it is not content. Not bounded: its callers bound it. */
  async #openInside(file: string): Promise<Opening> {
    let target: string
    try {
      target = await this.#fs.realpath(path.join(this.dir, file))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing'
      throw error
    }
    if (!(await liesInside(target, (fresh) => this.#rootPath(fresh)))) {
      return { refused: 'a link that leads out of CONTENT_DIR' }
    }
    const handle = await this.#fs.open(target, openFlags)
    try {
      const stats = await handle.stat({ bigint: true })
      if (stats.isFile()) return { handle, stats }
    } catch (error) {
      await handle.close()
      throw error
    }
    await handle.close()
    return { refused: 'not a regular file' }
  }

  /** The folder's real path: resolved again when asked `fresh`, or when the last one is `rootResolvedForMs` old. */
  async #rootPath(fresh: boolean): Promise<string> {
    const now = performance.now()
    const root = this.#root
    if (!fresh && root && now - root.at < this.#limits.rootResolvedForMs) return root.path
    const resolved = await this.#fs.realpath(this.dir)
    this.#root = { path: resolved, at: now }
    return resolved
  }

  async #readInside(file: string, maxBytes: number): Promise<ReadFile | 'missing' | { refused: RefusedReason }> {
    const opened = await this.#openInside(file)
    if (opened === 'missing' || 'refused' in opened) return opened
    const { handle, stats } = opened
    try {
      const reads = wholeFileReads(file, Number(stats.size), maxBytes)
      let step = reads.next()
      while (!step.done) {
        const { buffer, offset, length } = step.value
        step = reads.next((await handle.read(buffer, offset, length, null)).bytesRead)
      }
      return { buffer: step.value, stats }
    } finally {
      await handle.close()
    }
  }

  /**
   * Runs one listing or read within the limits: it waits for a slot (at most `readWaitMs`), then runs (at most
   * `readTimeoutMs`); past either it fails with COURIER_ERR_CONTENT_UNREADABLE. The slot stays taken until the work
   * really ends, however long after its time-out that is.
   */
  async #bounded<T>(what: string, work: () => Promise<T>, lane: ReadLane = 'text'): Promise<T> {
    const { readTimeoutMs, readWaitMs } = this.#limits
    const ticket = this.#slots.acquire(lane)
    try {
      const waited = () =>
        new errors.ContentUnreadable(
          what,
          `waited longer than ${readWaitMs} ms for the file system (${this.#slots.queued} reads queued)`,
        )
      let release: () => void
      try {
        release = await withTimeOut(ticket.granted, readWaitMs, waited, fileSystemTime)
      } catch (error) {
        // A slot that comes later goes straight to the next caller.
        ticket.cancel()
        throw error
      }
      let timedOut = false
      const running = work().finally(() => {
        if (timedOut) this.#stuck--
        release()
      })
      const unanswered = () => new errors.ContentUnreadable(what, `no answer from the file system within ${readTimeoutMs} ms`)
      return await withTimeOut(running, readTimeoutMs, unanswered, {
        ...fileSystemTime,
        onTimeOut: () => {
          timedOut = true
          this.#timedOut++
          this.#stuck++
        },
      })
    } catch (error) {
      if (error instanceof errors.ContentInvalid || error instanceof errors.ContentUnreadable) throw error
      throw new errors.ContentUnreadable(what, (error as Error).message)
    }
  }
}

/**
 * `size` bytes of an opened file as a stream: one bounded read of `chunkBytes` each time the reader has taken the last
 * (so a slow reader holds one chunk, not the file), `close` when it ends, fails or is destroyed. A file that has become
 * shorter since it was opened fails the stream (the answer's length was told already).
 */
function fileStream(
  file: string,
  size: number,
  chunkBytes: number,
  read: (position: number, length: number) => Promise<Buffer>,
  close: () => Promise<void>,
): Readable {
  let position = 0
  return new Readable({
    highWaterMark: chunkBytes,
    read(this: Readable) {
      if (position >= size) return void this.push(null)
      read(position, Math.min(chunkBytes, size - position)).then(
        (chunk) => {
          if (this.destroyed) return
          if (chunk.length === 0) {
            this.destroy(new errors.ContentUnreadable(file, `shorter than the ${size} bytes it had when opened`))
            return
          }
          position += chunk.length
          this.push(chunk)
        },
        (error: unknown) => this.destroy(error as Error),
      )
    },
    destroy(error, callback) {
      close().then(
        () => callback(error),
        (closeError: unknown) => callback(error ?? (closeError as Error)),
      )
    },
  })
}
