/**
 * The shape of the product's code, kept here so that it stays: no reach into another package's internal files, one
 * reader of `Accept-Encoding` (the sender, docs/compression.md), few casts through `unknown`, each at a library's type
 * edge with its reason beside it. Layout (120 columns) is Prettier's job: `npm run format:check`.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'

const root = path.resolve(import.meta.dirname, '..')
// Courier's own code; client/ and site/ hold the site, which an adopter makes theirs (docs/your-site.md) and shapes
// as they like.
const productFolders = ['src', 'plugins', 'config', 'deploy']

function sourceFiles(folder: string): string[] {
  const entries = readdirSync(path.join(root, folder), { withFileTypes: true, recursive: true })
  return entries
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
}

const files = productFolders
  .flatMap(sourceFiles)
  .map((file) => ({ file, text: readFileSync(path.join(root, file), 'utf8') }))

t.ok(files.length > 50, `${files.length} product files read`)

t.test("no import of another package's internal files", async (t) => {
  const specifier = /(?:from\s+|import\s*\(\s*)['"]([^'"./][^'"]*)['"]/g
  const internal = files.flatMap(({ file, text }) =>
    [...text.matchAll(specifier)]
      .map((match) => match[1]!)
      .filter((name) => /^(?:@[^/]+\/)?[^/]+\/(?:.*\/)?(?:cjs|dist|lib|src|internal|esm)\//.test(name))
      .map((name) => `${file}: ${name}`),
  )
  t.same(internal, [])
})

t.test('one file reads Accept-Encoding from a request', async (t) => {
  const readers = files
    .filter(({ text }) => /headers\s*\[\s*['"]accept-encoding['"]\s*\]|headers\s*\.\s*['"]?accept-encoding/i.test(text))
    .map(({ file }) => file)
  t.same(readers, ['src/delivery/send.ts'])
})

t.test('at most 5 casts through unknown, each with its reason beside it', async (t) => {
  const casts = files.flatMap(({ file, text }) => {
    const lines = text.split('\n')
    return lines.flatMap((line, index) =>
      line.includes('as unknown as')
        ? [
            {
              at: `${file}:${index + 1}`,
              reasoned: /\/\/|\*/.test(lines.slice(Math.max(0, index - 3), index + 1).join('\n')),
            },
          ]
        : [],
    )
  })
  t.ok(casts.length <= 5, `${casts.length} casts: ${casts.map((cast) => cast.at).join(', ')}`)
  t.same(
    casts.filter((cast) => !cast.reasoned).map((cast) => cast.at),
    [],
    'a comment within three lines above each',
  )
})
