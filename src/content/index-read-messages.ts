/**
 * What the event loop (src/content/index-reads.ts) and the content index's thread (src/content/index-read-worker.ts)
 * say to each other: apart from the thread's module, so the event loop loads none of the thread's code.
 */
import type { DatedText, FileIdentity, RefusedReason } from './read-rules.ts'

export interface IndexReadSettings {
  /** CONTENT_DIR as configured. */
  dir: string
  maxFileBytes: number
  rootResolvedForMs: number
}

export interface IndexReadJob {
  id: number
  /** `identity`: the file's `stat` (a link followed); `read`: its text by the rules of a content read. */
  op: 'identity' | 'read'
  /** Relative to the folder. */
  file: string
}

/** What a job found: an identity, a text, no file, a file that is not content, or a failure of the file system. */
export type IndexReadOutcome =
  | { identity: FileIdentity }
  | { read: DatedText }
  | { missing: true }
  | { refused: RefusedReason }
  | { invalid: string }
  | { failed: string }

export type IndexReadAnswer = { id: number } & IndexReadOutcome

/** Posted once the thread has loaded: a job's time counts from here, not from the thread's start. */
export const indexReaderReady = 'ready'
