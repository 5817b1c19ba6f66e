/**
 * The index of the guides (src/content/content-index.ts, docs/content.md "How many pages"): each guide's front matter
 * read once per version, changes seen once a revalidation asks again, listings and pagers answered without reading
 * other guides' files, and its build sharing the event loop.
 */
import { readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import t, { type Test } from 'tap'
import { ContentFiles } from '../../src/content/content-files.ts'
import { ContentSource } from '../../src/content/content-source.ts'
import { IndexReads } from '../../src/content/index-reads.ts'
import { contentWithMoreGuides } from '../helpers/content.ts'

type IndexReader = Pick<IndexReads, 'datedText' | 'identity'>

/** The index's two readers: on the event loop for a small folder, on its own thread for a large one. */
const indexReaders: IndexReader[] = [ContentFiles.prototype, IndexReads.prototype]

/** Replaces `method` of both index readers by `wrap(the original, the reader)`; returns what puts them back. */
function wrapIndexReaders<M extends keyof IndexReader>(
  method: M,
  wrap: (original: IndexReader[M], reader: IndexReader) => IndexReader[M],
): () => void {
  const originals = indexReaders.map((reader) => reader[method])
  indexReaders.forEach((reader, at) => (reader[method] = wrap(originals[at]!, reader)))
  return () => indexReaders.forEach((reader, at) => (reader[method] = originals[at]!))
}

/** Every file read while `run` runs, by a page or by the index (on either reader), relative to the folder. */
async function filesRead(t: Test, run: () => Promise<unknown>): Promise<string[]> {
  const read: string[] = []
  const bytes = ContentFiles.prototype.bytes
  ContentFiles.prototype.bytes = function countedBytes(this: ContentFiles, file, ...rest) {
    read.push(file)
    return bytes.call(this, file, ...rest)
  }
  const restore = wrapIndexReaders('datedText', (datedText) =>
    function countedDatedText(this: IndexReader, file: string) {
      read.push(file)
      return datedText.call(this, file)
    },
  )
  try {
    await run()
  } finally {
    ContentFiles.prototype.bytes = bytes
    restore()
  }
  t.comment(`read: ${read.length} files`)
  return read
}

function guideFile(title: string, order: number, extra = ''): string {
  return `---\ntitle: "${title}"\nsummary: "A guide of the test."\norder: ${order}\n${extra}---\n\n## One\n\nText.\n`
}

t.test('the index sees a guide added, changed and removed once a revalidation asks it again', async (t) => {
  const dir = await contentWithMoreGuides(t, 0)
  const content = new ContentSource(dir, { limits: { recheckAfterMs: 3_600_000 } })
  t.teardown(() => content.close())
  const before = await content.guideSummaries()
  const guides = path.join(dir, 'guides')
  await writeFile(path.join(guides, 'added-guide.md'), guideFile('Added', -1))
  await writeFile(path.join(guides, `${before[1]!.slug}.md`), guideFile('Changed title', 999))
  await rm(path.join(guides, `${before[2]!.slug}.md`))
  t.same(await content.guideSummaries(), before, 'without a revalidation the index is the one read')

  content.recheckIndex()
  const after = await content.guideSummaries()
  t.equal(after[0]!.slug, 'added-guide', 'the guide added is listed, in its place')
  t.same(after.at(-1), { slug: before[1]!.slug, title: 'Changed title', summary: 'A guide of the test.' }, 'changed')
  t.notOk(
    after.some((guide) => guide.slug === before[2]!.slug),
    'the guide removed is gone',
  )
  t.equal(after.length, before.length, 'one more, one fewer')
  t.equal(content.indexStats.version, 2, 'a new version of the index')
  content.recheckIndex()
  await content.guideSummaries()
  t.equal(content.indexStats.version, 2, 'a check that finds nothing changed keeps the version')
})

t.test("a guide's pager and a listing page read the index, no other guide's file", async (t) => {
  const dir = await contentWithMoreGuides(t, 100)
  const content = new ContentSource(dir)
  t.teardown(() => content.close())
  const all = await filesRead(t, () => content.guideSummaries())
  t.ok(all.length > 100, 'the index reads every guide once')
  const summaries = await content.guideSummaries()
  const slug = summaries[50]!.slug
  const forGuide = await filesRead(t, async () => {
    t.ok(await content.guide(slug))
    const { previous, next } = await content.guideNeighbours(slug)
    t.same([previous?.slug, next?.slug], [summaries[49]!.slug, summaries[51]!.slug], 'its neighbours in the list')
  })
  t.same(forGuide, [`guides/${slug}.md`], "the guide's own file alone")
  const forListing = await filesRead(t, async () => {
    const page = await content.guideListPage(2)
    t.equal(page?.page, 2)
    t.ok(page!.guides.length > 0 && page!.pages > 2)
    t.same(
      page!.guides.map((guide) => guide.slug),
      summaries.slice(page!.guides.length, 2 * page!.guides.length).map((guide) => guide.slug),
      'the second page of the list, in order',
    )
    t.equal(await content.guideListPage(page!.pages + 1), undefined, 'no page past the last')
  })
  t.same(forListing, [], 'a listing page reads no file')
  t.equal(await content.guide('no-such-guide'), undefined)
  t.equal(await content.guide('../guides/x'), undefined, 'a slug that is not a name reads nothing')
})

t.test('a bad front matter fails the lists with the file named; the fix is seen at the next check', async (t) => {
  const dir = await contentWithMoreGuides(t, 0)
  const content = new ContentSource(dir)
  t.teardown(() => content.close())
  const file = path.join(dir, 'guides', 'dated-badly.md')
  await writeFile(file, guideFile('Dated badly', 3, 'date: "yesterday"\n'))
  await t.rejects(content.guideListPage(1), { code: 'COURIER_ERR_CONTENT_INVALID', message: /dated-badly\.md.*date/ })
  await writeFile(file, guideFile('Dated well', 3, 'date: 2026-03-01\n'))
  content.recheckIndex()
  t.equal(await content.guideLastModified('dated-badly'), '2026-03-01', "the front matter's date")
})

t.test("the guides' newest date is kept per version of the index, and a newer guide is seen at the next", async (t) => {
  const dir = await contentWithMoreGuides(t, 0)
  const content = new ContentSource(dir, { limits: { recheckAfterMs: 3_600_000 } })
  t.teardown(() => content.close())
  const guides = path.join(dir, 'guides')
  await writeFile(path.join(guides, 'dated-first.md'), guideFile('Dated first', 1, 'updated: 2999-01-01\n'))
  content.recheckIndex()
  t.equal(await content.guideLastModified(), '2999-01-01', 'the newest of all')
  const version = (await content.guideIndex()).version
  t.same(await filesRead(t, () => content.guideLastModified()), [], 'asked again: no file read')
  await writeFile(path.join(guides, 'dated-later.md'), guideFile('Dated later', 2, 'updated: 2999-06-01\n'))
  t.equal(await content.guideLastModified(), '2999-01-01', 'the same version of the index: the same answer')
  content.recheckIndex()
  t.equal(await content.guideLastModified(), '2999-06-01', 'a newer guide, seen once the index is checked again')
  t.ok((await content.guideIndex()).version > version, 'in a new version of the index')
  await rm(path.join(guides, 'dated-later.md'))
  content.recheckIndex()
  t.equal(await content.guideLastModified(), '2999-01-01', 'and gone with it')
})

t.test('a check stats every guide and reads again only those whose identity changed, a kept date or not', async (t) => {
  const dir = await contentWithMoreGuides(t, 100)
  // No file counts as changed close to its read: what is tested here is the identity alone.
  const content = new ContentSource(dir, { limits: { recheckAfterMs: 3_600_000, sameTickMs: 0 } })
  t.teardown(() => content.close())
  const before = await content.guideSummaries()
  content.recheckIndex()
  t.same(await filesRead(t, () => content.guideSummaries()), [], 'nothing changed: no guide read again')
  const file = path.join(dir, 'guides', `${before[7]!.slug}.md`)
  const text = await readFile(file, 'utf8')
  const { atime, mtime } = await stat(file)
  // The same size, the old modification time put back (as `touch -d` or an rsync keeping times would): the change
  // time still moves, and no program can set it.
  await writeFile(file, text.replace(before[7]!.title, 'X'.repeat(before[7]!.title.length)))
  await utimes(file, atime, mtime)
  content.recheckIndex()
  t.same(await filesRead(t, () => content.guideSummaries()), [`guides/${before[7]!.slug}.md`], 'that guide alone read')
  t.equal((await content.guideSummaries())[7]!.title, 'X'.repeat(before[7]!.title.length), 'and its new title listed')
})

t.test('a guide changed close to when it was read is read again at the next check, whatever its stat says', async (t) => {
  const dir = await contentWithMoreGuides(t, 0)
  const content = new ContentSource(dir, { limits: { recheckAfterMs: 3_600_000 } })
  t.teardown(() => content.close())
  // A file system whose clock ticks coarsely: every stat gives the same identity, as two writes within one tick do.
  t.teardown(wrapIndexReaders('identity', () => async () => ({ version: 'one tick', changedMs: 0 })))
  t.teardown(
    wrapIndexReaders('datedText', (datedText) =>
      async function sameIdentity(this: IndexReader, file: string) {
        const read = await datedText.call(this, file)
        return read && { ...read, version: 'one tick' }
      },
    ),
  )
  const file = path.join(dir, 'guides', 'written-twice.md')
  await writeFile(file, guideFile('Written once', -1))
  content.recheckIndex()
  t.equal((await content.guideSummaries())[0]!.title, 'Written once')
  await writeFile(file, guideFile('Written twice', -1))
  content.recheckIndex()
  t.equal((await content.guideSummaries())[0]!.title, 'Written twice', 'the second write is seen')
})

t.test('a folder of fewer than threadFromGuides guides is indexed on the event loop, a larger one on the thread', async (t) => {
  const dir = await contentWithMoreGuides(t, 0)
  const guides = (await readdir(path.join(dir, 'guides'))).length
  const content = new ContentSource(dir, { limits: { recheckAfterMs: 3_600_000, threadFromGuides: guides + 1 } })
  t.teardown(() => content.close())
  const readers: string[] = []
  t.teardown(
    wrapIndexReaders('datedText', (datedText, reader) =>
      function tallied(this: IndexReader, file: string) {
        readers.push(reader.constructor.name)
        return datedText.call(this, file)
      },
    ),
  )
  await content.guideSummaries()
  t.same(new Set(readers), new Set(['ContentFiles']), `${guides} guides: read through the pages' reads`)
  readers.length = 0
  await writeFile(path.join(dir, 'guides', 'one-more.md'), guideFile('One more', -1))
  content.recheckIndex()
  t.equal((await content.guideSummaries())[0]!.title, 'One more')
  t.same(new Set(readers), new Set(['IndexReads']), `${guides + 1} guides: read on the index's thread`)
})

t.test('building the index of a few thousand guides leaves the event loop free', async (t) => {
  const dir = await contentWithMoreGuides(t, 3_000)
  const content = new ContentSource(dir)
  t.teardown(() => content.close())
  const delay = monitorEventLoopDelay({ resolution: 5 })
  delay.enable()
  const started = performance.now()
  const { entries } = await content.guideIndex()
  delay.disable()
  const [p99Ms, maxMs] = [delay.percentile(99) / 1e6, delay.max / 1e6]
  const tookMs = Math.round(performance.now() - started)
  t.comment(`${entries.length} guides in ${tookMs} ms; loop delay p99 ${p99Ms.toFixed(1)} ms, max ${maxMs.toFixed(1)} ms`)
  t.ok(entries.length > 3_000)
  // A behaviour check with generous bounds (the machine is shared, a collection of the heap pauses any code): a build
  // in one piece would hold the loop for its whole time, seconds here. The bench measures the build itself.
  t.ok(maxMs < tookMs / 4, `the loop never held for long (max ${maxMs.toFixed(1)} ms of ${tookMs} ms)`)
})
