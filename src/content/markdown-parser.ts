import { Worker } from 'node:worker_threads'
import { errors } from '../errors.ts'
import type { MarkdownFile } from './markdown.ts'
import { markdownWorkerFile } from './worker-files.ts'
import { parserReady, type ParseJob, type ParseResult } from './markdown-messages.ts'

export interface MarkdownParserLimits {
  /** A parse that has not finished by then fails: its thread is ended and a new one takes the next file. */
  parseTimeoutMs: number
  /** The parser thread's heap, so that no file can take the process's memory with it. */
  parseHeapMb: number
  /** A thread with nothing to parse for this long ends, and gives its memory back; the next file starts another. */
  idleMs: number
}

/** Failures of the bounds (time, heap, a thread that stopped), not of the file's text: they may not happen again. */
const boundFailures = new WeakSet<Error>()

/** Whether a parse failed on a bound (time, memory) rather than on what the file says: worth another try later. */
export function isBoundFailure(error: unknown): boolean {
  return error instanceof Error && boundFailures.has(error)
}

function boundFailure(file: string, reason: string): Error {
  const error = new errors.ContentInvalid(file, reason)
  boundFailures.add(error)
  return error
}

interface Pending {
  job: ParseJob
  resolve: (parsed: MarkdownFile) => void
  reject: (error: Error) => void
}

/**
 * Parses Markdown on a thread of its own (src/content/markdown-worker.ts), one file at a time, so that no content file
 * can hold the event loop: micromark needs about 4 ms per KiB of prose, and much more for deep nesting
 * (docs/content.md "What a content file may be"). A parse is bounded in time and in memory: past either the thread is
 * ended and the file is COURIER_ERR_CONTENT_INVALID. The thread starts on the first parse and ends when idle.
 */
export class MarkdownParser {
  readonly #limits: MarkdownParserLimits
  #worker: Worker | undefined
  /** Whether #worker has loaded the parser: until then a parse's time does not run. */
  #ready = false
  #running: (Pending & { timer: NodeJS.Timeout | undefined }) | undefined
  readonly #queue: Pending[] = []
  #idle: NodeJS.Timeout | undefined
  #nextId = 0
  #closed = false

  constructor(limits: MarkdownParserLimits) {
    this.#limits = limits
  }

  parse(text: string, file: string): Promise<MarkdownFile> {
    if (this.#closed) return Promise.reject(new errors.ContentUnreadable(file, 'the server is closing'))
    return new Promise((resolve, reject) => {
      this.#queue.push({ job: { id: ++this.#nextId, text, file }, resolve, reject })
      this.#next()
    })
  }

  /** Ends the thread; files waiting fail. */
  async close(): Promise<void> {
    this.#closed = true
    const waiting = [...(this.#running ? [this.#running] : []), ...this.#queue.splice(0)]
    for (const pending of waiting) {
      pending.reject(new errors.ContentUnreadable(pending.job.file, 'the server is closing'))
    }
    await this.#end()
  }

  #next(): void {
    if (this.#running || this.#queue.length === 0) return
    const pending = this.#queue.shift()!
    clearTimeout(this.#idle)
    const worker = this.#worker ?? this.#start()
    this.#running = { ...pending, timer: undefined }
    // Kept alive while it parses (someone waits for the file); idle, it never keeps the process alive.
    worker.ref()
    if (this.#ready) this.#startClock()
    worker.postMessage(pending.job)
  }

  /** The running parse's time starts: past it, the thread is ended and the file refused. */
  #startClock(): void {
    const running = this.#running
    if (!running || running.timer !== undefined) return
    running.timer = setTimeout(() => {
      void this.#end()
      this.#settle(boundFailure(running.job.file, `parsing took longer than ${this.#limits.parseTimeoutMs} ms`))
    }, this.#limits.parseTimeoutMs)
  }

  #start(): Worker {
    const worker = new Worker(markdownWorkerFile, {
      resourceLimits: { maxOldGenerationSizeMb: this.#limits.parseHeapMb },
      stdout: false,
      stderr: false,
    })
    worker.on('message', (result: ParseResult | typeof parserReady) => {
      if (result === parserReady) {
        if (this.#worker === worker) this.#ready = true
        return this.#startClock()
      }
      if (result.id !== this.#running?.job.id) return
      const { file } = this.#running.job
      if ('parsed' in result) return this.#settle(undefined, result.parsed)
      if ('invalid' in result) return this.#settle(new errors.ContentInvalid(file, result.invalid))
      this.#settle(new errors.ContentInvalid(file, `the Markdown parser failed on it: ${result.failed}`))
    })
    worker.on('error', (error: Error) => {
      // Out of its heap, or a failure of the thread itself: the file it was parsing is the one to blame. A thread
      // ended here (#end) is no longer #worker, and says nothing about the file parsed now.
      if (this.#worker !== worker) return
      this.#worker = undefined
      this.#ready = false
      const file = this.#running?.job.file
      if (file !== undefined) this.#settle(boundFailure(file, `the Markdown parser failed on it: ${error.message}`))
    })
    worker.on('exit', () => {
      if (this.#worker !== worker) return
      this.#worker = undefined
      this.#ready = false
      const file = this.#running?.job.file
      if (file !== undefined && !this.#closed) {
        this.#settle(boundFailure(file, 'the Markdown parser stopped while parsing it'))
      }
    })
    this.#worker = worker
    this.#ready = false
    return worker
  }

  #settle(error: Error | undefined, parsed?: MarkdownFile): void {
    const running = this.#running
    if (!running) return
    clearTimeout(running.timer)
    this.#running = undefined
    if (error) running.reject(error)
    else running.resolve(parsed!)
    if (this.#closed) return
    if (this.#queue.length > 0) return this.#next()
    this.#worker?.unref()
    this.#idle = setTimeout(() => void this.#end(), this.#limits.idleMs)
    this.#idle.unref()
  }

  async #end(): Promise<void> {
    clearTimeout(this.#idle)
    const worker = this.#worker
    this.#worker = undefined
    this.#ready = false
    await worker?.terminate()
  }
}
