/**
 * The index's reading thread (src/content/index-read-worker.ts) on a file system that stops answering: a job for a file
 * named `*.stuck` first opens it without O_NONBLOCK, which for a FIFO really blocks the thread in the system call until
 * a writer comes, as a read from a stuck network mount does. Every other job is the real thread's.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { parentPort, workerData } from 'node:worker_threads'
import type { IndexReadJob, IndexReadSettings } from '../../src/content/index-read-messages.ts'
import { indexReadWorkerFile } from '../../src/content/worker-files.ts'

const { dir } = workerData as IndexReadSettings
parentPort!.on('message', function hangOnStuckFiles({ file }: IndexReadJob) {
  if (file.endsWith('.stuck')) readFileSync(path.join(dir, file))
})
// By the URL the server starts the thread from (as the Markdown parser's thread is started).
await import(indexReadWorkerFile.href)
