/**
 * The documentation holds together: every relative link of README.md and docs/*.md leads to a file of the repository
 * (and, with a #fragment, to a heading of it), every README or docs/ section a comment of the code names exists, and
 * no comment cites what the repository does not hold.
 */
import t from 'tap'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..', '..')

/** The documents: README.md and every page of docs/. */
const documents = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
]

/** Folders and files whose comments may name a section of the documentation. */
const codeRoots = ['config', 'src', 'plugins', 'client', 'site', 'test', 'bench', 'deploy', 'vite.config.ts']
const codeFile = /\.(?:ts|tsx|mts|mjs|js|conf)$/
const skippedFolders = new Set(['node_modules', 'peers', 'results'])

function codeFiles(relative: string): string[] {
  const absolute = path.join(root, relative)
  if (!statSync(absolute).isDirectory()) return codeFile.test(relative) ? [relative] : []
  return readdirSync(absolute, { withFileTypes: true }).flatMap((entry) => {
    if (entry.isDirectory())
      return skippedFolders.has(entry.name) ? [] : codeFiles(path.posix.join(relative, entry.name))
    return codeFile.test(entry.name) ? [path.posix.join(relative, entry.name)] : []
  })
}

/** A document's text without its fenced code blocks (what GitHub renders as prose and headings). */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
}

/** Heading texts as written, inline code marks removed: `## Tracing cost (\`npm run x\`)` → `Tracing cost (npm run x)`. */
function headings(markdown: string): string[] {
  return [...prose(markdown).matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)].map((match) =>
    match[1]!.replace(/`/g, ''),
  )
}

/** The anchors GitHub gives a document's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const result = new Set<string>()
  for (const heading of headings(markdown)) {
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    result.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return result
}

const text = new Map(documents.map((document) => [document, readFileSync(path.join(root, document), 'utf8')]))

t.test('the documentation is README.md and docs/, and README.md stays a front door', async (t) => {
  t.ok(documents.length > 10, `${documents.length} documents`)
  const lines = text.get('README.md')!.split('\n').length - 1
  t.ok(lines <= 250, `README.md has ${lines} lines, at most 250`)
})

t.test('every relative link of README.md and docs/ leads to a file, and every #fragment to a heading', async (t) => {
  let links = 0
  for (const [document, markdown] of text) {
    // Inline code is not rendered as a link; what remains is what a reader can click.
    const rendered = prose(markdown).replace(/`[^`\n]*`/g, '``')
    for (const match of rendered.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1]!
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
      links++
      const [file = '', fragment] = target.split('#') as [string, string | undefined]
      const resolved =
        file === '' ? document : path.posix.normalize(path.posix.join(path.posix.dirname(document), file))
      if (!existsSync(path.join(root, resolved))) {
        t.fail(`${document}: ${target} leads to no file (${resolved})`)
        continue
      }
      if (fragment === undefined) continue
      const targetText = text.get(resolved) ?? readFileSync(path.join(root, resolved), 'utf8')
      t.ok(anchors(targetText).has(fragment), `${document}: ${target} names a heading of ${resolved}`)
    }
  }
  t.ok(links > 50, `${links} relative links checked`)
})

/** `README "Section"` or `docs/page.md "Section"` in a comment (a comment's line break and marks may split them). */
const sectionReference = /\b(README|docs\/[a-z0-9-]+\.md),?\s+(?:(?:\*|\/\/|#)\s+)?\(?"([^"\n]+)"/g

t.test('every section of the documentation a comment of the code names exists', async (t) => {
  // This file spells example references in its own comments.
  const files = codeRoots.flatMap(codeFiles).filter((file) => file !== 'test/docs/links.test.ts')
  t.ok(files.length > 100, `${files.length} files of code read`)
  let references = 0
  for (const file of files) {
    const source = readFileSync(path.join(root, file), 'utf8')
    for (const match of source.matchAll(sectionReference)) {
      const [, named, section] = match as unknown as [string, string, string]
      const document = named === 'README' ? 'README.md' : named
      const markdown = text.get(document)
      references++
      if (markdown === undefined) {
        t.fail(`${file}: names ${named}, which is not a document of the repository`)
        continue
      }
      t.ok(
        headings(markdown).includes(section.replace(/`/g, '')),
        `${file}: ${named} "${section}" is a heading of ${document}`,
      )
    }
    // A file named bare (`docs/page.md` without a section) must exist too.
    for (const match of source.matchAll(/\bdocs\/[a-z0-9-]+\.md\b/g)) {
      if (!text.has(match[0])) t.fail(`${file}: names ${match[0]}, which does not exist`)
    }
  }
  t.ok(references > 40, `${references} named sections checked`)
})

t.test('comments cite only what the repository holds', async (t) => {
  const foreign = /\b[Ii]ssue \d+\b|\bproduct spec\b|\bspec section\b|\bDESIGN\.md\b|\bSTYLE\.md\b|\bTOOLCHAIN\.md\b/
  for (const file of codeRoots.flatMap(codeFiles)) {
    // This file spells the forbidden words in its own pattern.
    if (file === 'test/docs/links.test.ts') continue
    const lines = readFileSync(path.join(root, file), 'utf8').split('\n')
    lines.forEach((line, index) => {
      if (foreign.test(line)) t.fail(`${file}:${index + 1} cites something outside the repository: ${line.trim()}`)
    })
  }
  for (const [document, markdown] of text) {
    t.notMatch(markdown, foreign, `${document} cites nothing outside the repository`)
  }
})
