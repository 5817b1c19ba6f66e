/**
 * The index's reads on a thread of their own (src/content/index-reads.ts): the rules of every content read (regular
 * files only, links only inside the folder, the size limit on the bytes read), and a file system that stops answering
 * fails the index's reads in time and holds one thread, never more.
 */
import { execFileSync } from 'node:child_process'
import { mkdir, mkdtemp, open as openFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { IndexReads } from '../../src/content/index-reads.ts'
import type { RefusedReason } from '../../src/content/read-rules.ts'

const limits = { maxFileBytes: 1024, readTimeoutMs: 1_000, rootResolvedForMs: 60_000, idleMs: 60_000 }
const hangingWorker = new URL('../helpers/hanging-index-worker.ts', import.meta.url)

async function folder(t: Test): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'courier-index-reads-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await mkdir(path.join(dir, 'guides'))
  await writeFile(path.join(dir, 'guides', 'first.md'), '---\ntitle: "First"\n---\n\nText.\n')
  return dir
}

function readsOf(t: Test, dir: string, workerFile?: URL) {
  const refused: string[] = []
  const reads = new IndexReads(dir, limits, (file, reason: RefusedReason) => refused.push(`${file}: ${reason}`), workerFile)
  t.teardown(() => reads.close())
  return { reads, refused }
}

t.test('the rules of every content read: regular files, links inside the folder, the size limit', async (t) => {
  const dir = await folder(t)
  const outside = await mkdtemp(path.join(tmpdir(), 'courier-index-outside-'))
  t.teardown(() => rm(outside, { recursive: true, force: true }))
  await writeFile(path.join(outside, 'secret.md'), 'secret')
  await symlink(path.join(outside, 'secret.md'), path.join(dir, 'guides', 'secret.md'))
  await symlink('/dev/zero', path.join(dir, 'guides', 'zero.md'))
  await symlink('first.md', path.join(dir, 'guides', 'alias.md'))
  execFileSync('mkfifo', [path.join(dir, 'guides', 'pipe.md')])
  await writeFile(path.join(dir, 'guides', 'long.md'), 'x'.repeat(1025))
  const { reads, refused } = readsOf(t, dir)

  const first = await reads.datedText('guides/first.md')
  t.match(first, { text: /title: "First"/, modifiedMs: Number, version: /^\d+:\d+:\d+:\d+:\d+$/, changedMs: Number })
  t.equal((await reads.identity('guides/first.md'))?.version, first?.version, 'its stat names the version read')
  t.equal((await reads.datedText('guides/alias.md'))?.text, first?.text, 'a link inside the folder is followed')
  t.equal(await reads.datedText('guides/gone.md'), undefined, 'no file: nothing')
  t.equal(await reads.identity('guides/gone.md'), undefined)
  for (const name of ['secret', 'zero', 'pipe']) t.equal(await reads.datedText(`guides/${name}.md`), undefined, name)
  t.same(refused, [
    'guides/secret.md: a link that leads out of CONTENT_DIR',
    'guides/zero.md: a link that leads out of CONTENT_DIR',
    'guides/pipe.md: not a regular file',
  ])
  await t.rejects(reads.datedText('guides/long.md'), {
    code: 'COURIER_ERR_CONTENT_INVALID',
    message: 'Content file guides/long.md is invalid: more than 1024 bytes; at most 1024 are read',
  })
  await writeFile(path.join(dir, 'guides', 'first.md'), '---\ntitle: "First, again"\n---\n')
  t.not((await reads.identity('guides/first.md'))?.version, first?.version, 'a write is another version')
  t.same(reads.stats, { inFlight: 0, stuck: 0, timedOut: 0 })
  await reads.close()
  await t.rejects(reads.identity('guides/first.md'), { code: 'COURIER_ERR_CONTENT_UNREADABLE', message: /closing/ })
})

t.test('a file system that stops answering: the reads fail in time, one thread waits, and it ends once it returns', async (t) => {
  const dir = await folder(t)
  const fifo = path.join(dir, 'guides', 'pipe.stuck')
  execFileSync('mkfifo', [fifo])
  const { reads } = readsOf(t, dir, hangingWorker)
  t.equal((await reads.datedText('guides/first.md'))?.text.includes('First'), true, 'the thread reads')
  const [stuck, sentWithIt] = await Promise.allSettled([
    reads.datedText('guides/pipe.stuck'),
    reads.identity('guides/first.md'),
  ])
  const unanswered = { code: 'COURIER_ERR_CONTENT_UNREADABLE', message: /no answer from the file system within 1000 ms/ }
  t.match(stuck, { status: 'rejected', reason: unanswered })
  t.match(sentWithIt, { status: 'rejected', reason: unanswered }, 'a job queued behind it fails with it')
  t.match(reads.stats, { stuck: 1, inFlight: 0 }, 'its thread still waits in the system call')
  await t.rejects(
    reads.identity('guides/first.md'),
    { code: 'COURIER_ERR_CONTENT_UNREADABLE', message: /still has no answer from the file system/ },
    'no second thread while it waits: the next read fails at once',
  )
  // The file system answers again: a writer opens the FIFO, the blocked open returns, and the thread can end.
  const writer = await openFile(fifo, 'w')
  await writer.close()
  const deadline = Date.now() + 10_000
  while (reads.stats.stuck > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  t.match(reads.stats, { stuck: 0 }, 'the thread ended once its call returned')
  t.equal((await reads.identity('guides/first.md'))?.version.split(':').length, 5, 'and a new one reads')
})
