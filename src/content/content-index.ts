import { createHash } from 'node:crypto'
import { setImmediate as yieldToEventLoop } from 'node:timers/promises'
import { errors } from '../errors.ts'
import { SingleFlight } from '../toolbox/single-flight.ts'
import type { DatedText, FileIdentity } from './read-rules.ts'
import { byOrder } from './required-fields.ts'

/** What the index keeps of each file: a few fields of its front matter, its place in the list. */
export interface IndexEntry {
  /** The file's name without `.md`: a guide's slug. */
  name: string
  order: number
}

/** One version of the index: every file's entry in order, or the first file that is bad content. */
export interface IndexSnapshot<Entry extends IndexEntry> {
  /** Grows by one each time an entry is added, changed or removed: what is kept per content version keys on it. */
  readonly version: number
  /** In list order (front matter `order`, then name). */
  readonly entries: readonly Entry[]
  /** Each name's place in `entries`. */
  readonly positions: ReadonlyMap<string, number>
  /** The bad file first by name, if any: every reader of the list fails with it until it is fixed, as a list did. */
  readonly failure: Error | undefined
  /** When the folder was last listed and read (the index's clock). */
  readonly checkedAt: number
  /** The recheck request it answers (`ContentIndex.recheck`). */
  readonly checkedFor: number
}

export interface ContentIndexOptions<Entry extends IndexEntry> {
  /** The names in the folder (one listing). */
  list: () => Promise<string[]>
  /** A file's text, modification time and identity; undefined when it is gone or not content. */
  read: (name: string) => Promise<DatedText | undefined>
  /** A file's identity by `stat`, without reading it; undefined when it is gone. */
  identify: (name: string) => Promise<FileIdentity | undefined>
  /** A file's entry from its text: front matter only, never the body; throws COURIER_ERR_CONTENT_INVALID. */
  entry: (name: string, read: DatedText) => Entry
  /** config/content.ts `contentIndex`. */
  readsAtOnce: number
  recheckAfterMs: number
  yieldAfterMs: number
  sameTickMs: number
  /** Told of a check that failed in the background (a reader waiting for one is told by its promise). */
  onCheckFailed: (error: unknown) => void
  /** Told of each check's end: how long it took and what it holds. */
  onChecked?: (report: { durationMs: number; entries: number; changed: number; version: number }) => void
  now?: () => number
}

/**
 * A file as the index last read it: the SHA-256 of its text, what its front matter gave, and the identity of the
 * version read, trusted to stand for the text unless the file changed close to when it was read (`recent`).
 */
type IndexedFile<Entry> = { hash: string; identity: string; recent: boolean } & ({ entry: Entry } | { failure: Error })

/**
 * The index of a folder of content files (docs/content.md "How many pages"): each file's front matter read once per
 * version of its text, so a listing, a pager or the sitemap reads the index and no file. A check lists the folder and
 * `stat`s every file (`identify`; the guides' index does it on a thread of its own, src/content/index-reads.ts); it
 * reads a file again only when its identity (device, inode, size, modification and change times) differs from the
 * version read, or when that version changed within `sameTickMs` of being read, as git treats a "racily clean" file: a
 * second write in the same tick of the file system's clock could leave the identity as it was. The front matter is
 * parsed again only when the text's hash differs, so neither a date nor a stat alone makes a new entry. It runs when
 * first asked, when `recheck` was called since the last one (a revalidation: its readers wait for it), and in the
 * background on a read after `recheckAfterMs` (that reader gets the index as it is). Checks run one at a time,
 * `readsAtOnce` files at a time; the work between two reads is one file's, and the event loop is given back every
 * `yieldAfterMs`.
 */
export class ContentIndex<Entry extends IndexEntry> {
  readonly #options: ContentIndexOptions<Entry>
  readonly #now: () => number
  /** Owned by the check running (one at a time): each file's hash and entry. */
  readonly #files = new Map<string, IndexedFile<Entry>>()
  readonly #checks = new SingleFlight<number, IndexSnapshot<Entry>>()
  #snapshot: IndexSnapshot<Entry> | undefined
  /** Whether `#files` differs from `#snapshot`. */
  #dirty = true
  /** Recheck requests made: a snapshot for fewer is waited past. */
  #wanted = 0
  #lastCheck: Promise<unknown> = Promise.resolve()

  constructor(options: ContentIndexOptions<Entry>) {
    this.#options = options
    this.#now = options.now ?? Date.now
  }

  /** The index now, once it has been built and answers every recheck asked for; throws the index's bad file. */
  async current(): Promise<IndexSnapshot<Entry>> {
    const snapshot = await this.#fresh()
    if (snapshot.failure) throw snapshot.failure
    return snapshot
  }

  /** The index as it is, bad file or not: built first when it has never been. */
  #fresh(): Promise<IndexSnapshot<Entry>> | IndexSnapshot<Entry> {
    const snapshot = this.#snapshot
    if (!snapshot || snapshot.checkedFor < this.#wanted) return this.#check()
    if (this.#now() - snapshot.checkedAt >= this.#options.recheckAfterMs) {
      this.#check().catch((error: unknown) => this.#options.onCheckFailed(error))
    }
    return snapshot
  }

  /** Starts the first check (at start-up), so the pages that need the index find it built. */
  warm(): Promise<IndexSnapshot<Entry>> {
    return this.#check()
  }

  /** The folder may have changed (a revalidation): the next read waits for a check that started after this call. */
  recheck(): void {
    this.#wanted++
  }

  /** The index's last version, if it has one: what the health route reports. */
  get snapshot(): IndexSnapshot<Entry> | undefined {
    return this.#snapshot
  }

  /** One check per recheck request, each after the one before it has ended. */
  #check(): Promise<IndexSnapshot<Entry>> {
    const wanted = this.#wanted
    return this.#checks.run(wanted, () => {
      const check = this.#lastCheck.then(() => this.#build(wanted))
      this.#lastCheck = check.catch(() => undefined)
      return check
    })
  }

  async #build(checkedFor: number): Promise<IndexSnapshot<Entry>> {
    const started = this.#now()
    const names = await this.#options.list()
    const listed = new Set(names)
    let removed = 0
    for (const name of this.#files.keys()) {
      if (listed.has(name)) continue
      this.#files.delete(name)
      this.#dirty = true
      removed++
    }
    const changed = removed + (await this.#checkAll(names))
    const snapshot = this.#publish(checkedFor)
    const durationMs = this.#now() - started
    this.#options.onChecked?.({ durationMs, entries: snapshot.entries.length, changed, version: snapshot.version })
    return snapshot
  }

  /** Checks every file (`#checkOne`), `readsAtOnce` at a time; returns how many changed. */
  async #checkAll(names: readonly string[]): Promise<number> {
    const { readsAtOnce, yieldAfterMs } = this.#options
    let next = 0
    let changed = 0
    let lastYield = performance.now()
    const reader = async () => {
      while (next < names.length) {
        const name = names[next++]!
        if (await this.#checkOne(name)) changed++
        if (performance.now() - lastYield >= yieldAfterMs) {
          await yieldToEventLoop()
          lastYield = performance.now()
        }
      }
    }
    await Promise.all(Array.from({ length: Math.max(1, readsAtOnce) }, reader))
    return changed
  }

  /** One file checked: read again when its identity changed, its front matter parsed when its text did. Whether its
   * entry changed. */
  async #checkOne(name: string): Promise<boolean> {
    const known = this.#files.get(name)
    if (known && !known.recent && (await this.#options.identify(name))?.version === known.identity) return false
    const readAt = Date.now()
    const read = await this.#options.read(name)
    if (!read) {
      const had = this.#files.delete(name)
      this.#dirty ||= had
      return had
    }
    const hash = createHash('sha256').update(read.text).digest('base64')
    const version = { hash, identity: read.version, recent: read.changedMs >= readAt - this.#options.sameTickMs }
    if (known?.hash === hash) {
      this.#files.set(name, { ...known, ...version })
      return false
    }
    try {
      this.#files.set(name, { ...version, entry: this.#options.entry(name, read) })
    } catch (error) {
      if (!(error instanceof errors.ContentInvalid)) throw error
      this.#files.set(name, { ...version, failure: error })
    }
    this.#dirty = true
    return true
  }

  /** The files as one snapshot: a new version when any changed, else the last one, checked now. */
  #publish(checkedFor: number): IndexSnapshot<Entry> {
    const checkedAt = this.#now()
    const last = this.#snapshot
    if (last && !this.#dirty) return (this.#snapshot = { ...last, checkedAt, checkedFor })
    const entries: Entry[] = []
    let failure: { name: string; error: Error } | undefined
    for (const [name, file] of this.#files) {
      if ('entry' in file) entries.push(file.entry)
      else if (!failure || name < failure.name) failure = { name, error: file.failure }
    }
    entries.sort(byOrder)
    const positions = new Map(entries.map((entry, position) => [entry.name, position]))
    this.#dirty = false
    const version = (last?.version ?? 0) + 1
    return (this.#snapshot = { version, entries, positions, failure: failure?.error, checkedAt, checkedFor })
  }
}
