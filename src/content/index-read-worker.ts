/**
 * The content index's thread (src/content/index-reads.ts): `stat`s and whole reads of guide files, by the rules of every
 * content read (src/content/read-rules.ts), made with the synchronous calls one after the other. A check of the index
 * then waits for no thread of libuv's pool, takes none from the pages' reads, and costs a message per file, not six
 * hand-offs to the pool. Answers each job with what it found, or why the file is not content.
 */
import { closeSync, fstatSync, openSync, readSync, realpathSync, statSync } from 'node:fs'
import path from 'node:path'
import { parentPort, workerData } from 'node:worker_threads'
import { datedTextOf, identityOf, liesInside, openFlags, wholeFileReads } from './read-rules.ts'
import {
  indexReaderReady,
  type IndexReadAnswer,
  type IndexReadJob,
  type IndexReadOutcome,
  type IndexReadSettings,
} from './index-read-messages.ts'

const settings = workerData as IndexReadSettings
let root: { path: string; at: number } | undefined

function rootPath(fresh: boolean): string {
  const now = performance.now()
  if (!fresh && root && now - root.at < settings.rootResolvedForMs) return root.path
  root = { path: realpathSync(settings.dir), at: now }
  return root.path
}

function identity(file: string): IndexReadOutcome {
  return { identity: identityOf(statSync(path.join(settings.dir, file), { bigint: true })) }
}

async function read(file: string): Promise<IndexReadOutcome> {
  const target = realpathSync(path.join(settings.dir, file))
  if (!(await liesInside(target, rootPath))) return { refused: 'a link that leads out of CONTENT_DIR' }
  const descriptor = openSync(target, openFlags)
  try {
    const stats = fstatSync(descriptor, { bigint: true })
    if (!stats.isFile()) return { refused: 'not a regular file' }
    const reads = wholeFileReads(file, Number(stats.size), settings.maxFileBytes)
    let step = reads.next()
    while (!step.done) {
      const { buffer, offset, length } = step.value
      step = reads.next(readSync(descriptor, buffer, offset, length, null))
    }
    return { read: datedTextOf(step.value, stats) }
  } finally {
    closeSync(descriptor)
  }
}

parentPort?.on('message', async function indexReadJob({ id, op, file }: IndexReadJob) {
  let answer: IndexReadOutcome
  try {
    answer = op === 'identity' ? identity(file) : await read(file)
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException
    const prefix = `Content file ${file} is invalid: `
    if (code === 'ENOENT') answer = { missing: true }
    else if (code === 'COURIER_ERR_CONTENT_INVALID') answer = { invalid: String(message).replace(prefix, '') }
    else answer = { failed: String(message) }
  }
  parentPort!.postMessage({ id, ...answer } satisfies IndexReadAnswer)
})
parentPort?.postMessage(indexReaderReady)
