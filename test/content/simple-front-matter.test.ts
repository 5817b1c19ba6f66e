/**
 * src/content/simple-front-matter.ts: what it reads it reads as YAML does; what it does not, it leaves to YAML.
 */
import t from 'tap'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { parse as parseYaml } from 'yaml'
import { readSimpleFrontMatter } from '../../src/content/simple-front-matter.ts'

const root = path.resolve(import.meta.dirname, '../..')

/** What YAML makes of the text, or the error it throws. */
function yamlOf(text: string): unknown {
  try {
    return parseYaml(text)
  } catch (error) {
    return error
  }
}

t.test('every content file of the site is read without YAML, as YAML reads it', async (t) => {
  let files = 0
  // The site's content and the tests' own (test/helpers/content.ts): the site's may be another one's, or none yet.
  for (const folder of ['content/guides', 'content/faq', 'test/fixtures/content/guides', 'test/fixtures/content/faq']) {
    if (!existsSync(path.join(root, folder))) continue
    for (const name of readdirSync(path.join(root, folder)).filter((one) => one.endsWith('.md'))) {
      const text = readFileSync(path.join(root, folder, name), 'utf8')
      const yamlText = /^---\n([\s\S]*?)\n---\n/.exec(text)![1]!
      t.same(readSimpleFrontMatter(yamlText), parseYaml(yamlText), `${folder}/${name}`)
      files += 1
    }
  }
  t.ok(files >= 10, `${files} files`)
})

t.test('read: the same as YAML, to the type', async (t) => {
  const accepted = [
    'title: "The client router"\norder: 6',
    'title: "Quotes \\" and \\\\ and a slash \\/ and a tab \\t and\\na new line"',
    'title: "# not a comment, : not a field"',
    'title: "Über Zürich 🚲"\nsummary: ""',
    'order: 0',
    'order: -12',
    'order: 123456789012345',
    'question: "Why?"\norder: 2\nextra-field: "x"\nsnake_case: 1',
  ]
  for (const text of accepted) {
    const simple = readSimpleFrontMatter(text)
    t.ok(simple, JSON.stringify(text))
    t.strictSame(simple, parseYaml(text), JSON.stringify(text))
  }
})

t.test('left to YAML: everything outside the subset, errors included', async (t) => {
  const declined = [
    '',
    'title: plain text',
    "title: 'single quoted'",
    'title: "a" # a comment',
    'title: "trailing space" ',
    'title:  "two spaces"',
    'title: "a"\n\norder: 1',
    'title: "a"\r\norder: 1',
    'order: 007',
    'order: -0',
    'order: 1.5',
    'order: 1e3',
    'order: 1234567890123456',
    'order: 0x1f',
    'title: "\\u00e9"',
    'title: "\\x41"',
    'title: "tab\tinside"',
    'null: "a"',
    'True: 1',
    '__proto__: "a"',
    'title: "a"\ntitle: "b"',
    '- "a list"',
    'title:\n  nested: 1',
    'title: [1, 2]',
    'title: "unterminated',
    'tags: "a", "b"',
  ]
  for (const text of declined) t.equal(readSimpleFrontMatter(text), undefined, JSON.stringify(text))
  // The duplicate is an error to YAML: declining it keeps that error the content's.
  t.type(yamlOf('title: "a"\ntitle: "b"'), Error)
})

t.test('random lines of the subset: the same as YAML', async (t) => {
  const pieces = ['a', 'Z', ' ', ':', '#', '"', '\\"', '\\\\', '\\/', '\\n', '\\t', 'é', '—', '🚲', '{', '[', '&', '*', '!', '%', '@', '`', "'", '-', '?']
  let seed = 7
  const random = (below: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % below
  }
  let read = 0
  for (let round = 0; round < 400; round += 1) {
    const lines: string[] = []
    for (let line = 0; line < 1 + random(4); line += 1) {
      const name = `f${line}${'_-x'[random(3)]}`
      if (random(3) === 0) lines.push(`${name}: ${random(2) ? '-' : ''}${1 + random(100000)}`)
      else lines.push(`${name}: "${Array.from({ length: random(12) }, () => pieces[random(pieces.length)]).join('')}"`)
    }
    const text = lines.join('\n')
    const simple = readSimpleFrontMatter(text)
    if (simple === undefined) continue
    read += 1
    t.strictSame(simple, yamlOf(text), JSON.stringify(text))
  }
  t.ok(read > 100, `${read} of 400 read without YAML`)
})
