import t, { type Test } from 'tap'
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ContentSource } from '../../src/content/content-source.ts'
import { parseMarkdown, textOf } from '../../src/content/markdown.ts'
import { build } from '../helpers/app.ts'
import { siteContent } from '../helpers/content.ts'
import { pageInstances, testGuidePath, testGuidesPath, testRoutes } from '../helpers/site-pages.ts'

/** A copy of the site's content the test may edit. */
async function contentCopy(t: Test): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'courier-content-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await cp(siteContent.dir, dir, { recursive: true })
  return dir
}

t.test('Markdown becomes an element tree: headings with ids, links kept, raw HTML dropped, no positions', async (t) => {
  const { frontMatter, body } = parseMarkdown(
    '---\ntitle: T\n---\n\n## A heading\n\nSee [the page](/a/page) and *this*.\n\n<script>alert(1)</script>\n\n## A heading\n\n<img src=x onerror="alert(1)">text\n',
    'guides/x.md',
  )
  t.same(frontMatter, { title: 'T' })
  const json = JSON.stringify(body)
  t.notMatch(json, 'script', 'a raw <script> is dropped')
  t.notMatch(json, 'onerror', 'raw attributes are dropped')
  t.notMatch(json, 'position', 'no source positions travel as page data')
  t.match(json, '"href":"/a/page"')
  const headings = body.children.filter((node) => node.type === 'element' && node.tagName === 'h2')
  t.same(
    headings.map((node) => (node.type === 'element' ? node.properties.id : undefined)),
    ['a-heading', 'a-heading-1'],
    'ids as GitHub spells them, unique in the file',
  )
  t.equal(textOf(body).includes('text'), true)
})

t.test('bad front matter is a coded error naming the file', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['no front matter\n\n## A\n\ntext\n', /guides\/x\.md is invalid: no front matter/],
    ['---\ntitle: [unclosed\n---\n\n## A\n', /guides\/x\.md is invalid: front matter is not YAML/],
    ['---\n- a list\n---\n\n## A\n', /guides\/x\.md is invalid: front matter must be a YAML mapping/],
  ]
  for (const [text, message] of cases) {
    t.throws(() => parseMarkdown(text, 'guides/x.md'), { code: 'COURIER_ERR_CONTENT_INVALID', message }, text.slice(0, 20))
  }
})

t.test('the site content reads: every guide and FAQ entry with its fields, in order', async (t) => {
  const guides = await siteContent.guides()
  t.ok(guides.length >= 10)
  t.same(guides.map((guide) => guide.order), [...guides.map((guide) => guide.order)].sort((a, b) => a - b))
  for (const guide of guides) {
    t.ok(guide.title && guide.summary && guide.sections.length > 0, guide.slug)
    t.ok(guide.sections.every((section) => section.anchor && section.content.children.length > 0), `${guide.slug} sections`)
  }
  const { entries } = await siteContent.faq()
  t.ok(entries.length >= 10)
  t.ok(entries.every((entry) => entry.question && textOf(entry.answer).length > 0))
})

t.test('a guide missing a field, badly named or with text outside a section fails with the file named', async (t) => {
  const dir = await contentCopy(t)
  const content = new ContentSource(dir)
  const file = path.join(dir, 'guides', 'tide-tables.md')
  const original = await readFile(file, 'utf8')
  await writeFile(file, original.replace(/^summary: .*\n/m, ''))
  await t.rejects(content.guides(), { code: 'COURIER_ERR_CONTENT_INVALID', message: /guides\/tide-tables\.md is invalid: front matter field summary is missing/ })
  await writeFile(file, original.replace(/^order: .*\n/m, 'order: first\n'))
  await t.rejects(content.guides(), { message: /tide-tables\.md is invalid: front matter field order must be a number/ })
  await writeFile(file, original.replace('---\n\n##', '---\n\nA stray paragraph.\n\n##'))
  await t.rejects(content.guides(), { message: /tide-tables\.md is invalid: text before the first ## heading/ })
  await writeFile(file, original)
  await writeFile(path.join(dir, 'guides', 'Bad Name.md'), original)
  await t.rejects(content.guides(), { message: /guides\/Bad Name\.md is invalid: a content file is named/ })
  await t.rejects(new ContentSource(path.join(dir, 'nowhere')).guides(), { code: 'COURIER_ERR_CONTENT_UNREADABLE' })
})

t.test('served: content read at run time from CONTENT_DIR; bad content is a 500 for that page, logged with the file', async (t) => {
  const dir = await contentCopy(t)
  const link = `${testGuidePath('tide-tables')}#what-it-is`
  await writeFile(
    path.join(dir, 'guides', 'zz-new-guide.md'),
    `---\ntitle: "A guide added at run time"\nsummary: "Written after the build."\norder: 99\n---\n\n## Read at run time\n\nSee the [tide tables](${link}) guide, or [elsewhere](https://example.com/).\n`,
  )
  // Its front matter is fine (it is listed), its body is not: only its own page fails.
  await writeFile(path.join(dir, 'guides', 'broken.md'), '---\ntitle: "Broken"\nsummary: "Its body is not."\norder: 100\n---\n\nA stray paragraph.\n')
  const { app, logs } = await build(t, { ...testRoutes, CONTENT_DIR: dir })
  const page = await app.inject(testGuidePath('zz-new-guide'))
  t.equal(page.statusCode, 200)
  t.match(page.body, '<h1>A guide added at run time</h1>')
  t.match(page.body, '<h2 id="read-at-run-time">Read at run time</h2>')
  t.match(page.body, `<a href="${link}">tide tables</a>`)
  t.match(page.body, '<a href="https://example.com/">elsewhere</a>')
  t.match((await app.inject(testGuidesPath)).body, 'A guide added at run time', 'listed')
  // The sitemap: every instance the page table derives from the content as it now is.
  const listed = [...(await app.inject('/sitemap-0.xml')).body.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => new URL(match[1]!).pathname)
  t.same(new Set(listed), new Set((await pageInstances({ content: new ContentSource(dir) })).map((instance) => instance.url)), 'the sitemap follows the content')

  const broken = await app.inject(testGuidePath('broken'))
  t.equal(broken.statusCode, 500, 'the guide whose content is bad is an error page')
  t.notMatch(broken.body, 'broken.md', 'the answer names no file')
  const line = logs().find((entry) => (entry.err as { code?: string } | undefined)?.code === 'COURIER_ERR_CONTENT_INVALID')
  t.match((line?.err as { message?: string } | undefined)?.message, /guides\/broken\.md is invalid: text before the first ## heading/, 'logged with the file')
  t.equal((await app.inject(testGuidePath('knot-tying'))).statusCode, 200, 'other pages are served')
  t.equal((await app.inject('/api/health')).statusCode, 200, 'the server stays up')
})

t.test('a file read again unchanged is not parsed again; a changed one is, whatever its size or date', async (t) => {
  const dir = await contentCopy(t)
  const source = new ContentSource(dir)
  const first = (await source.faq()).entries[0]!
  const again = (await source.faq()).entries[0]!
  t.equal(again.answer, first.answer, 'the same parsed answer: the unchanged file was not parsed again')

  const file = path.join(dir, 'faq', `${first.anchor}.md`)
  const text = await readFile(file, 'utf8')
  // One letter changed: the same length, and within the same second as the first write.
  const changed = text.replace(/([a-z])(?![\s\S]*[a-z])/, (letter) => (letter === 'x' ? 'y' : 'x'))
  t.not(changed, text)
  t.equal(Buffer.byteLength(changed), Buffer.byteLength(text))
  await writeFile(file, changed)
  const after = (await source.faq()).entries[0]!
  t.not(after.answer, first.answer, 'parsed again')
  t.not(JSON.stringify(after.answer), JSON.stringify(first.answer), 'the new text')
})

t.test('front matter: the block on the first lines, CRLF and trailing blanks as Markdown editors write them', async (t) => {
  const body = '## A\n\nText.\n'
  for (const [text, label] of [
    [`---\ntitle: T\n---\n${body}`, 'LF'],
    [`---\r\ntitle: T\r\n---\r\n${body}`, 'CRLF'],
    [`--- \ntitle: T\n---\t\n${body}`, 'blanks after the fences'],
  ] as const) {
    const parsed = parseMarkdown(text, 'guides/x.md')
    t.same(parsed.frontMatter, { title: 'T' }, label)
    t.equal(textOf(parsed.body), 'AText.', `${label}: the body without the block`)
  }
  t.throws(() => parseMarkdown(`\n---\ntitle: T\n---\n${body}`, 'guides/x.md'), { message: /no front matter/ }, 'a blank line first: no block')
  t.throws(() => parseMarkdown(`---\n---\n${body}`, 'guides/x.md'), { message: /must be a YAML mapping/ }, 'an empty block')
  t.throws(() => parseMarkdown(`---\ntitle: T\n${body}`, 'guides/x.md'), { message: /no front matter/ }, 'an unclosed block')
})

t.test('a guide is served with its neighbours from their front matter: a broken body elsewhere is that page\'s error only', async (t) => {
  const dir = await contentCopy(t)
  const source = new ContentSource(dir)
  const summaries = await source.guideSummaries()
  const [first, second] = summaries
  const file = path.join(dir, 'guides', `${second!.slug}.md`)
  const original = await readFile(file, 'utf8')
  await writeFile(file, original.replace(/\n---\n\n##/, '\n---\n\nA stray paragraph.\n\n##'))
  t.same(await source.guideSummaries(), summaries, 'the list reads the front matter only')
  t.equal((await source.guide(first!.slug))?.slug, first!.slug, 'its neighbour reads')
  await t.rejects(source.guide(second!.slug), { message: new RegExp(`${second!.slug}\\.md is invalid: text before the first ## heading`) })
  t.equal(await source.guide('no-such-guide'), undefined)
  t.equal(await source.guide('../faq/broken'), undefined, 'a slug is a file of the folder, never a path')

  const { app } = await build(t, { ...testRoutes, CONTENT_DIR: dir })
  const page = await app.inject(testGuidePath(first!.slug))
  t.equal(page.statusCode, 200)
  t.match(page.body, second!.title, 'the pager names the neighbour')
  t.equal((await app.inject(testGuidePath(second!.slug))).statusCode, 500, 'the broken guide is an error page')
})
