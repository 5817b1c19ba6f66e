import { watch, type FSWatcher } from 'node:fs'
import { readdir, stat } from 'node:fs/promises'
import path from 'node:path'
import type { FastifyBaseLogger } from 'fastify'

const slash = 0x2f

/**
 * Which paths of the public folder name a file, known without touching the disk: the folder is walked once after
 * start-up and again after every change a watcher reports, so that a request for a path that names no file (what
 * most requests reaching the public files' wildcard route are: every 404 of the site) goes to the not-found handler
 * at once, without @fastify/static's spelling check and stat (a `readdir` per path segment, then a `stat`). It only
 * ever says "missing": while it is not sure (before the first walk, while a change is walked, without a watcher, or
 * where a link to a folder is found, whose content no watcher follows) every request goes on to @fastify/static as
 * it would without it. A file written to the folder is served as soon as the watcher's event is handled
 * (milliseconds); until then, as before a restart, it is a 404.
 */
export class PublicFileIndex {
  readonly #root: string
  readonly #log: FastifyBaseLogger
  #files: ReadonlySet<string> | undefined
  #watcher: FSWatcher | undefined
  /** A walk runs; `#again`: a change came during it, so its result may be stale. */
  #walking = false
  #again = false
  #closed = false

  constructor(root: string, log: FastifyBaseLogger) {
    this.#root = root
    this.#log = log
  }

  /** Starts watching and walking; a folder that cannot be watched leaves every request to @fastify/static. */
  start(): void {
    try {
      this.#watcher = watch(this.#root, { recursive: true, persistent: false }, () => this.#changed())
      this.#watcher.on('error', (error) => this.#giveUp(error))
    } catch (error) {
      // No folder (a site without public files): @fastify/static answers each path missing on its own.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
      return this.#giveUp(error)
    }
    this.#changed()
  }

  /**
   * Whether `urlPath` (the request's path, not decoded, no query) surely names no public file. Asked of every request
   * before it is routed (plugins/public-files.ts): no allocation for a path without escapes.
   */
  knowsMissing(urlPath: string): boolean {
    const files = this.#files
    if (files === undefined) return false
    let decoded = urlPath
    if (urlPath.includes('%')) {
      try {
        decoded = decodeURIComponent(urlPath)
      } catch {
        return false
      }
    }
    // Anything but an absolute path, and dotfiles, folders, `.` and `..` (a segment that starts with a dot), empty
    // segments and NUL are @fastify/static's to judge.
    if (
      decoded.charCodeAt(0) !== slash ||
      decoded.endsWith('/') ||
      decoded.includes('//') ||
      decoded.includes('/.') ||
      decoded.includes('\0')
    ) {
      return false
    }
    return !files.has(decoded)
  }

  close(): void {
    this.#closed = true
    this.#watcher?.close()
    this.#files = undefined
  }

  #giveUp(error: unknown): void {
    this.#log.warn({ err: error, root: this.#root }, 'public files: no watcher, every path is looked up on disk')
    this.#watcher?.close()
    this.#watcher = undefined
    this.#files = undefined
    this.#closed = true
  }

  #changed(): void {
    this.#files = undefined
    if (this.#walking) {
      this.#again = true
      return
    }
    this.#walking = true
    walkFiles(this.#root).then(
      (files) => this.#walked(files),
      (error: unknown) => this.#giveUp(error),
    )
  }

  #walked(files: ReadonlySet<string> | undefined): void {
    this.#walking = false
    if (this.#closed) return
    if (this.#again) {
      this.#again = false
      return this.#changed()
    }
    // A link to a folder: its content changes without an event here.
    this.#files = files
  }
}

/**
 * Every file under `root` as a URL path (`/images/a.jpg`), dotfiles and what is inside dot-folders left out (never
 * served); undefined when a link to a folder is found. No root: no file.
 */
async function walkFiles(root: string): Promise<ReadonlySet<string> | undefined> {
  const files = new Set<string>()
  let linkedFolder = false
  async function walk(folder: string): Promise<void> {
    const entries = await readdir(path.join(root, folder), { withFileTypes: true }).catch(() => [])
    await Promise.all(
      entries.map(async (entry) => {
        if (entry.name.startsWith('.')) return
        const relative = `${folder}/${entry.name}`
        if (entry.isDirectory()) return walk(relative)
        if (entry.isFile()) return void files.add(relative)
        if (!entry.isSymbolicLink()) return
        const target = await stat(path.join(root, relative)).catch(() => undefined)
        if (target?.isDirectory()) linkedFolder = true
        else if (target?.isFile()) files.add(relative)
      }),
    )
  }
  await walk('')
  return linkedFolder ? undefined : files
}
