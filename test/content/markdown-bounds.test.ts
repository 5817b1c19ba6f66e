/**
 * Markdown within bounds (docs/content.md "What a content file may be"): nesting refused before parsing, parsing on a
 * thread of its own bounded in time and memory, and a bad file's failure kept for its version.
 */
import t, { type Test } from 'tap'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { contentLayout } from '../../config/content.ts'
import { checkNesting } from '../../src/content/markdown-bounds.ts'
import { MarkdownParser } from '../../src/content/markdown-parser.ts'
import { ContentSource } from '../../src/content/content-source.ts'

const frontMatter = '---\ntitle: "T"\nsummary: "S."\norder: 1\n---\n\n'
const prose = 'A sentence with *emphasis*, a [link](/somewhere) and `code`.\n\n'

t.test('nesting: prose, lists and code pass; deeper than the bound is refused with the line', async (t) => {
  const max = contentLayout.maxNestingDepth
  const ordinary = [
    '## Lists\n\n- one\n  - two\n    - three\n      > a quote in a list\n\n1. first\n2. second\n',
    '> a quote\n>\n> > a quote in a quote\n',
    '```ts\n' + ' '.repeat(80) + 'deeply indented code is code\n' + '>'.repeat(40) + '\n```\n',
    '~~~\n- - - - - - - - - - - - - - - - in a fence\n~~~\n',
  ]
  for (const markdown of ordinary) t.doesNotThrow(() => checkNesting(markdown, 'guides/x.md', max), markdown.slice(0, 24))
  const deep = [
    ['>'.repeat(max + 1) + ' quoted', 1],
    ['## A\n\n' + '> '.repeat(max + 1) + 'spaced', 3],
    [Array.from({ length: max + 2 }, (_, index) => '  '.repeat(index) + '- item').join('\n'), max + 1],
    ['- '.repeat(max + 1) + 'bullets on one line', 1],
  ] as const
  for (const [markdown, line] of deep) {
    t.throws(() => checkNesting(markdown, 'guides/x.md', max), {
      code: 'COURIER_ERR_CONTENT_INVALID',
      message: new RegExp(`guides/x\\.md is invalid: body line ${line} nests \\d+ blocks deep .*; at most ${max}`),
    })
  }
})

t.test('the parser thread: a parse past its time is ended and the file refused; the next file parses', async (t) => {
  const parser = new MarkdownParser({ parseTimeoutMs: 1_000, parseHeapMb: 256, idleMs: 60_000 })
  t.teardown(() => parser.close())
  const long = frontMatter + '## A\n\n' + prose.repeat(60_000)
  await t.rejects(parser.parse(long, 'guides/long.md'), { code: 'COURIER_ERR_CONTENT_INVALID', message: /guides\/long\.md is invalid: parsing took longer than 1000 ms/ })
  const small = await parser.parse(frontMatter + '## A\n\nText.\n', 'guides/small.md')
  t.same(small.frontMatter, { title: 'T', summary: 'S.', order: 1 })
  t.equal(small.body.children.length, 2)
  await t.rejects(parser.parse('no front matter', 'guides/bad.md'), { code: 'COURIER_ERR_CONTENT_INVALID', message: /guides\/bad\.md is invalid: no front matter/ })
})

t.test('the parser thread: a file that takes more than its heap fails alone', async (t) => {
  const parser = new MarkdownParser({ parseTimeoutMs: 60_000, parseHeapMb: 64, idleMs: 60_000 })
  t.teardown(() => parser.close())
  const large = frontMatter + '## A\n\n' + prose.repeat(40_000)
  await t.rejects(parser.parse(large, 'guides/large.md'), { code: 'COURIER_ERR_CONTENT_INVALID', message: /guides\/large\.md is invalid: the Markdown parser failed on it/ })
  t.ok((await parser.parse(frontMatter + '## A\n\nText.\n', 'guides/small.md')).body, 'a new thread parses the next file')
})

async function oneGuide(t: Test, text: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'courier-markdown-bounds-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await mkdir(path.join(dir, 'guides'))
  await writeFile(path.join(dir, 'guides', 'only.md'), text)
  return dir
}

t.test("a bad file's failure is kept for its version, and an edit is read again", async (t) => {
  const text = frontMatter + '## A\n\n' + '>'.repeat(contentLayout.maxNestingDepth + 5) + ' deep\n'
  const dir = await oneGuide(t, text)
  const content = new ContentSource(dir)
  t.teardown(() => content.close())
  const first = await content.guide('only').catch((error: unknown) => error)
  t.match(first, { code: 'COURIER_ERR_CONTENT_INVALID', message: /body line 4 nests/ })
  const second = await content.guide('only').catch((error: unknown) => error)
  t.equal(second, first, 'the same failure, not a second check or parse')
  await writeFile(path.join(dir, 'guides', 'only.md'), frontMatter + '## A\n\n> fixed\n')
  t.equal((await content.guide('only'))?.title, 'T', 'the fixed version is read')
})

t.test('front matter over its bound is refused before YAML reads it', async (t) => {
  const dir = await oneGuide(t, `---\ntitle: "T"\nsummary: "${'s'.repeat(contentLayout.maxFrontMatterBytes)}"\norder: 1\n---\n\n## A\n`)
  const content = new ContentSource(dir)
  t.teardown(() => content.close())
  await t.rejects(content.guideSummaries(), { code: 'COURIER_ERR_CONTENT_INVALID', message: /front matter of \d+ bytes; at most 8192/ })
})

t.test('a failure of a bound is kept a while, then the file is parsed again; a failure of the text until it changes', async (t) => {
  const prose = 'A sentence with *emphasis*, a [link](/somewhere) and `code`.\n\n'
  const dir = await oneGuide(t, frontMatter + '## A\n\n' + prose.repeat(800))
  const slow = new ContentSource(dir, { limits: { parseTimeoutMs: 1, boundFailureRetryMs: 300 } })
  t.teardown(() => slow.close())
  const first = await slow.guide('only').catch((error: unknown) => error)
  t.match(first, { code: 'COURIER_ERR_CONTENT_INVALID', message: /parsing took longer than 1 ms/ })
  t.equal(await slow.guide('only').catch((error: unknown) => error), first, 'kept for a while: no parse per visitor')
  await new Promise((resolve) => setTimeout(resolve, 400))
  const again = await slow.guide('only').catch((error: unknown) => error)
  t.not(again, first, 'parsed again once the while has passed')
})
