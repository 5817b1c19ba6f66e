import { Worker } from 'node:worker_threads'
import { errors } from '../errors.ts'
import { withTimeOut } from '../toolbox/time-out.ts'
import {
  indexReaderReady,
  type IndexReadAnswer,
  type IndexReadJob,
  type IndexReadOutcome,
  type IndexReadSettings,
} from './index-read-messages.ts'
import { fileSystemTime, type DatedText, type FileIdentity, type RefusedReason } from './read-rules.ts'
import { indexReadWorkerFile } from './worker-files.ts'

export interface IndexReadsLimits {
  maxFileBytes: number
  /** A job with no answer this long after it was sent fails, with every job sent with it, and the thread is ended. */
  readTimeoutMs: number
  rootResolvedForMs: number
  /** The thread ends after this long without a job; the next job starts another. */
  idleMs: number
}

interface Waiting {
  file: string
  resolve: (outcome: IndexReadOutcome) => void
  reject: (error: Error) => void
}

/**
 * The content index's reads (src/content/content-index.ts) on a thread of their own (src/content/index-read-worker.ts),
 * by the rules of every content read: the index of 10,000 guides is read in well under a second, without the event
 * loop and without the read slots of the pages (src/content/content-files.ts). A folder that stops answering (a stuck
 * network mount) fails the jobs within `readTimeoutMs` and the thread is ended; until it has really ended (its system
 * call returned) the index's reads fail at once, so a hanging folder holds one thread, never more.
 */
export class IndexReads {
  readonly #settings: IndexReadSettings
  readonly #limits: IndexReadsLimits
  readonly #onRefused: (file: string, reason: RefusedReason) => void
  readonly #workerFile: URL
  readonly #waiting = new Map<number, Waiting>()
  #worker: Worker | undefined
  /** Settles once #worker has loaded its code (a job's time runs from then), or has failed to. */
  #ready: Promise<void> = Promise.resolve()
  /** A thread ended for a time-out that has not exited yet: it waits in a system call. */
  #stuck: Worker | undefined
  #timedOut = 0
  #nextId = 0
  #idle: NodeJS.Timeout | undefined
  #closed = false

  /** `workerFile`: the thread's module, or a stand-in in a test that makes a system call hang. */
  constructor(
    dir: string,
    limits: IndexReadsLimits,
    onRefused: (file: string, reason: RefusedReason) => void,
    workerFile: URL = indexReadWorkerFile,
  ) {
    this.#settings = { dir, maxFileBytes: limits.maxFileBytes, rootResolvedForMs: limits.rootResolvedForMs }
    this.#limits = limits
    this.#onRefused = onRefused
    this.#workerFile = workerFile
  }

  /** Jobs sent and not answered; whether a thread is stuck in a system call; jobs timed out since start. */
  get stats(): { inFlight: number; stuck: number; timedOut: number } {
    return { inFlight: this.#waiting.size, stuck: this.#stuck ? 1 : 0, timedOut: this.#timedOut }
  }

  /** A file's identity by `stat` (a link followed): undefined when there is no file. */
  async identity(file: string): Promise<FileIdentity | undefined> {
    const outcome = await this.#ask('identity', file)
    return 'identity' in outcome ? outcome.identity : undefined
  }

  /** A file's text by the rules of `ContentFiles.text`; undefined when it is not there or is not content. */
  async datedText(file: string): Promise<DatedText | undefined> {
    const outcome = await this.#ask('read', file)
    if ('read' in outcome) return outcome.read
    if ('refused' in outcome) this.#onRefused(file, outcome.refused)
    return undefined
  }

  /** Ends the thread; jobs waiting fail. */
  async close(): Promise<void> {
    this.#closed = true
    this.#failAll(() => 'the server is closing')
    await this.#end()
  }

  async #ask(op: IndexReadJob['op'], file: string): Promise<IndexReadOutcome> {
    const unreadable = (reason: string) => new errors.ContentUnreadable(file, reason)
    if (this.#closed) throw unreadable('the server is closing')
    if (this.#stuck) throw unreadable('an earlier read of the index still has no answer from the file system')
    const worker = this.#worker ?? this.#start()
    clearTimeout(this.#idle)
    worker.ref()
    const id = ++this.#nextId
    const answered = new Promise<IndexReadOutcome>((resolve, reject) => this.#waiting.set(id, { file, resolve, reject }))
    answered.catch(() => undefined)
    worker.postMessage({ id, op, file } satisfies IndexReadJob)
    // A new thread loads its code first: the job's time runs from then.
    await Promise.race([this.#ready, answered])
    const outcome = await withTimeOut(
      answered,
      this.#limits.readTimeoutMs,
      () => unreadable(`no answer from the file system within ${this.#limits.readTimeoutMs} ms`),
      { ...fileSystemTime, onTimeOut: () => this.#timeOut(worker) },
    )
    if ('invalid' in outcome) throw new errors.ContentInvalid(file, outcome.invalid)
    if ('failed' in outcome) throw unreadable(outcome.failed)
    return outcome
  }

  #start(): Worker {
    const worker = new Worker(this.#workerFile, { workerData: this.#settings, stdout: false, stderr: false })
    let loaded = () => {}
    let failed = (_error: Error) => {}
    this.#ready = new Promise<void>((resolve, reject) => ([loaded, failed] = [resolve, reject]))
    this.#ready.catch(() => undefined)
    worker.on('message', (message: IndexReadAnswer | typeof indexReaderReady) => {
      if (message === indexReaderReady) return loaded()
      const { id, ...outcome } = message
      const waiting = this.#waiting.get(id)
      if (!waiting) return
      this.#waiting.delete(id)
      waiting.resolve(outcome)
      if (this.#waiting.size === 0) this.#rest(worker)
    })
    worker.on('error', (error: Error) => {
      failed(new errors.ContentUnreadable(this.#settings.dir, `the index's reading thread failed: ${error.message}`))
      if (this.#worker !== worker) return
      this.#worker = undefined
      this.#failAll(() => `the index's reading thread failed: ${error.message}`)
    })
    worker.on('exit', () => {
      failed(new errors.ContentUnreadable(this.#settings.dir, "the index's reading thread stopped"))
      if (this.#stuck === worker) this.#stuck = undefined
      if (this.#worker !== worker) return
      this.#worker = undefined
      this.#failAll(() => "the index's reading thread stopped")
    })
    this.#worker = worker
    return worker
  }

  /** No job waits: the thread no longer holds the process open, and ends after `idleMs`. */
  #rest(worker: Worker): void {
    worker.unref()
    this.#idle = setTimeout(() => void this.#end(), this.#limits.idleMs)
    this.#idle.unref()
  }

  /** A job of `worker` timed out: the others sent to it fail too, and it is ended (it exits once its call returns). */
  #timeOut(worker: Worker): void {
    this.#timedOut++
    if (this.#worker !== worker) return
    this.#worker = undefined
    this.#stuck = worker
    this.#failAll(() => `no answer from the file system within ${this.#limits.readTimeoutMs} ms`)
    void worker.terminate()
  }

  #failAll(reason: () => string): void {
    const waiting = [...this.#waiting.values()]
    this.#waiting.clear()
    for (const { file, reject } of waiting) reject(new errors.ContentUnreadable(file, reason()))
  }

  async #end(): Promise<void> {
    clearTimeout(this.#idle)
    const worker = this.#worker
    this.#worker = undefined
    await worker?.terminate()
  }
}
