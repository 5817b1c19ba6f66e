/**
 * CONTENT_DIR read as untrusted input (docs/content.md "What a content file may be"): only regular files, links only
 * when they stay inside the folder, the size limit on the bytes read, and every read bounded in time and in number so
 * that a file system that stops answering holds neither a page nor libuv's thread pool.
 */
import t, { type Test } from 'tap'
import { execFileSync } from 'node:child_process'
import { open as openFile, readdir, readFile, realpath, rename, stat, symlink, writeFile, mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ContentFiles, type ContentFileSystem } from '../../src/content/content-files.ts'
import type { RefusedReason } from '../../src/content/read-rules.ts'
import { ContentSource } from '../../src/content/content-source.ts'

const guide = (title: string, order: number) => `---\ntitle: "${title}"\nsummary: "About ${title}."\norder: ${order}\n---\n\n## ${title}\n\nSome text.\n`

/** A content folder of the test's own: two guides and one FAQ entry. */
async function contentDir(t: Test): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'courier-content-files-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await mkdir(path.join(dir, 'guides'))
  await mkdir(path.join(dir, 'faq'))
  await writeFile(path.join(dir, 'guides', 'first.md'), guide('First', 1))
  await writeFile(path.join(dir, 'guides', 'second.md'), guide('Second', 2))
  await writeFile(path.join(dir, 'faq', 'why.md'), '---\nquestion: "Why?"\norder: 1\n---\n\nBecause.\n')
  return dir
}

function recorder() {
  const warnings: Array<{ fields: Record<string, unknown>; message: string }> = []
  return { warnings, log: { warn: (fields: Record<string, unknown>, message: string) => void warnings.push({ fields, message }) } }
}

const limits = { maxFileBytes: 1024, readTimeoutMs: 300, readWaitMs: 300, maxReadsInFlight: 2, rootResolvedForMs: 60_000 }

t.test('a FIFO named like a guide is refused at once with a warn line: its page is missing, the others are listed', async (t) => {
  const dir = await contentDir(t)
  execFileSync('mkfifo', [path.join(dir, 'guides', 'pipe.md')])
  const { warnings, log } = recorder()
  const content = new ContentSource(dir, { log })
  t.teardown(() => content.close())
  t.equal(await content.guide('pipe'), undefined, 'the FIFO is no guide (no writer ever comes: a blocking open would hang)')
  t.same((await content.guideSummaries()).map((summary) => summary.slug), ['first', 'second'])
  t.same((await content.guides()).map((entry) => entry.slug), ['first', 'second'])
  t.ok(warnings.length >= 1)
  t.same(warnings[0], { fields: { file: 'guides/pipe.md', reason: 'not a regular file' }, message: 'content file refused' })
})

t.test('CONTENT_DIR a link switched to another release: the next read follows it, however recently it was resolved', async (t) => {
  const releases = await mkdtemp(path.join(tmpdir(), 'courier-releases-'))
  t.teardown(() => rm(releases, { recursive: true, force: true }))
  for (const release of ['one', 'two']) {
    await mkdir(path.join(releases, release, 'guides'), { recursive: true })
    await writeFile(path.join(releases, release, 'guides', 'first.md'), guide(`First of ${release}`, 1))
  }
  const dir = path.join(releases, 'current')
  await symlink('one', dir)
  // The folder's real path is kept for a minute here: the switch must not wait for that.
  const files = new ContentFiles(dir, limits, (file) => t.fail(`${file} refused`))
  t.match(await files.text('guides/first.md'), 'First of one')
  await symlink('two', path.join(releases, 'next'))
  await rename(path.join(releases, 'next'), dir)
  t.match(await files.text('guides/first.md'), 'First of two', 'the new release, not a file "outside" the old one')
})

t.test('links: followed inside CONTENT_DIR, refused when they lead out (/dev/zero, a file elsewhere)', async (t) => {
  const dir = await contentDir(t)
  const outside = await mkdtemp(path.join(tmpdir(), 'courier-outside-'))
  t.teardown(() => rm(outside, { recursive: true, force: true }))
  await writeFile(path.join(outside, 'secret.md'), guide('Secret', 3))
  await symlink('/dev/zero', path.join(dir, 'guides', 'zero.md'))
  await symlink(path.join(outside, 'secret.md'), path.join(dir, 'guides', 'secret.md'))
  await symlink(path.join(dir, 'guides', 'first.md'), path.join(dir, 'guides', 'alias.md'))
  await mkdir(path.join(dir, 'shared'))
  await writeFile(path.join(dir, 'shared', 'kept.md'), guide('Kept', 4))
  await symlink('../shared/kept.md', path.join(dir, 'guides', 'kept.md'))
  const { warnings, log } = recorder()
  const content = new ContentSource(dir, { log })
  t.teardown(() => content.close())
  const rssBefore = process.memoryUsage.rss()
  t.equal(await content.guide('zero'), undefined, '/dev/zero is never read')
  t.ok(process.memoryUsage.rss() - rssBefore < 64 * 1024 * 1024, 'nothing near the size of an endless file was read')
  t.equal(await content.guide('secret'), undefined, "a file outside the folder is not published")
  t.equal((await content.guide('alias'))?.title, 'First', 'a link to a file of the folder is followed')
  t.equal((await content.guide('kept'))?.title, 'Kept', 'a relative link inside the folder too')
  t.same((await content.guideSummaries()).map((summary) => summary.slug), ['alias', 'first', 'second', 'kept'], 'listed by order, then name')
  const refused = warnings.map(({ fields }) => `${fields.file}: ${fields.reason as RefusedReason}`)
  t.ok(refused.includes('guides/zero.md: a link that leads out of CONTENT_DIR'))
  t.ok(refused.includes('guides/secret.md: a link that leads out of CONTENT_DIR'))
})

t.test('the size limit holds on the bytes read', async (t) => {
  const dir = await contentDir(t)
  await writeFile(path.join(dir, 'guides', 'long.md'), guide('Long', 5) + 'x'.repeat(2048))
  const files = new ContentFiles(dir, limits, () => t.fail('nothing refused'))
  await t.rejects(files.text('guides/long.md'), { code: 'COURIER_ERR_CONTENT_INVALID', message: /guides\/long\.md is invalid: more than 1024 bytes/ })
  t.match(await files.text('guides/first.md'), 'title: "First"')
  t.same(files.stats, { inFlight: 0, stuck: 0, timedOut: 0 })
})

/**
 * A file system that stops answering: `open` of the named file really blocks in a thread of libuv's pool (a FIFO
 * opened without O_NONBLOCK waits for a writer), as a read from a stuck network mount does.
 */
function hangingOpen(fifo: string): ContentFileSystem {
  return {
    readdir,
    realpath,
    stat,
    open: ((file: string, flags: number) =>
      path.basename(file) === path.basename(fifo) ? openFile(fifo, 'r') : openFile(file, flags)) as ContentFileSystem['open'],
  }
}

t.test('a read that never ends times out, holds at most its cap of the thread pool, and frees it when it returns', async (t) => {
  const dir = await contentDir(t)
  const fifo = path.join(dir, 'guides', 'stuck.md')
  execFileSync('mkfifo', [fifo])
  const files = new ContentFiles(dir, limits, () => t.fail('nothing refused'), hangingOpen(fifo))
  const [first, second, third] = await Promise.allSettled([files.text('guides/stuck.md'), files.text('guides/stuck.md'), files.text('guides/stuck.md')])
  for (const read of [first, second]) {
    t.match(read, { status: 'rejected', reason: { code: 'COURIER_ERR_CONTENT_UNREADABLE', message: /guides\/stuck\.md.*no answer from the file system within 300 ms/ } })
  }
  t.match(third, { status: 'rejected', reason: { code: 'COURIER_ERR_CONTENT_UNREADABLE', message: /guides\/stuck\.md.*waited longer than 300 ms for the file system/ } }, 'the third waited for a slot, and never started')
  t.same(files.stats, { inFlight: 2, stuck: 2, timedOut: 2 }, 'two system calls still wait in the thread pool')
  // The other two threads of the pool still serve the rest of the process.
  t.match(await readFile(path.join(dir, 'guides', 'first.md'), 'utf8'), 'First')
  await t.rejects(files.text('guides/first.md'), { code: 'COURIER_ERR_CONTENT_UNREADABLE', message: /waited longer than 300 ms/ }, 'no slot while both are held: this read fails too')
  // The file system answers again: a writer opens the FIFO and both blocked opens return.
  const writers = [await openFile(fifo, 'w')]
  t.teardown(() => Promise.all(writers.map((writer) => writer.close())))
  const deadline = Date.now() + 5_000
  while (files.stats.inFlight > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  t.same(files.stats, { inFlight: 0, stuck: 0, timedOut: 2 }, 'the slots are back once the calls returned')
  t.match(await files.text('guides/first.md'), 'First', 'reads work again')
})

t.test('an event loop held up longer than the time-out: a read that finished meanwhile is not failed', async (t) => {
  const dir = await contentDir(t)
  // A file system that answers each path in 20 ms.
  const slowRealpath = ((file: string) => new Promise((resolve) => setTimeout(resolve, 20)).then(() => realpath(file))) as ContentFileSystem['realpath']
  const fileSystem: ContentFileSystem = { readdir, realpath: slowRealpath, open: openFile, stat }
  // Time-outs short against the hold-up below, yet long enough for the reads' own work on a machine that a full
  // test run keeps busy (at 50 ms, the time given once more was sometimes too short for the read itself).
  const files = new ContentFiles(dir, { ...limits, readTimeoutMs: 150, readWaitMs: 150 }, () => t.fail('nothing refused'), fileSystem)
  const reads = Array.from({ length: limits.maxReadsInFlight }, () => files.text('guides/first.md'))
  await new Promise((resolve) => setImmediate(resolve))
  // Then a busy process (a long synchronous job, a machine out of CPU): every timer is long due when it runs.
  const until = performance.now() + 900
  while (performance.now() < until);
  for (const read of await Promise.allSettled(reads)) t.match(read, { status: 'fulfilled', value: /title: "First"/ })
  t.same(files.stats, { inFlight: 0, stuck: 0, timedOut: 0 })
})
