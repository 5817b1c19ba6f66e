/**
 * The shape of the product's code, kept here so that it stays. It counts ideas, not lines: a function fits on a screen
 * (at most 60 lines of its own; a function nested in it counts on its own), a file holds one idea (at most 400 lines),
 * a product file has a caller in the product (test doubles live in test/helpers/), `src/` folders import only
 * downwards, no reach into another package's internal files, one reader of `Accept-Encoding` (the sender,
 * docs/compression.md), few casts through `unknown`, each at a library's type edge with its reason beside it. Layout
 * (120 columns) is Prettier's job: `npm run format:check`.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import ts from 'typescript5'

const root = path.resolve(import.meta.dirname, '..')
// Courier's own code; client/ and site/ hold the site, which an adopter makes theirs (docs/your-site.md) and shapes
// as they like.
const productFolders = ['src', 'plugins', 'config', 'deploy']

function sourceFiles(folder: string): string[] {
  const entries = readdirSync(path.join(root, folder), { withFileTypes: true, recursive: true })
  return entries
    .filter((entry) => entry.isFile() && /\.(?:tsx?|mts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.mts'))
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

/** Each function's own lines: the lines it spans less those of the functions nested in it. */
function functionLengths(file: string, text: string): Array<{ at: string; lines: number }> {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const lineOf = (position: number) => source.getLineAndCharacterOfPosition(position).line
  const hasBody = (node: ts.Node): node is ts.FunctionLikeDeclaration =>
    ts.isFunctionLike(node) && 'body' in node && node.body !== undefined
  const lengths: Array<{ at: string; lines: number }> = []
  const visit = (node: ts.Node) => {
    if (hasBody(node)) {
      const first = lineOf(node.getStart(source))
      const own = new Set<number>()
      for (let line = first; line <= lineOf(node.getEnd()); line++) own.add(line)
      const dropNested = (child: ts.Node) => {
        if (hasBody(child)) {
          for (let line = lineOf(child.getStart(source)) + 1; line < lineOf(child.getEnd()); line++) own.delete(line)
        } else child.forEachChild(dropNested)
      }
      node.body!.forEachChild(dropNested)
      lengths.push({ at: `${file}:${first + 1}`, lines: own.size })
    }
    node.forEachChild(visit)
  }
  visit(source)
  return lengths
}

t.test('every function is at most 60 lines of its own, every file at most 400', async (t) => {
  const long = files.flatMap(({ file, text }) => functionLengths(file, text)).filter(({ lines }) => lines > 60)
  t.same(
    long.map(({ at, lines }) => `${at} (${lines} lines)`),
    [],
    'functions over 60 lines',
  )
  const big = files.filter(({ text }) => text.split('\n').length - 1 > 400).map(({ file }) => file)
  t.same(big, [], 'files over 400 lines')
})

/** The relative imports of a file, resolved to paths from the repository's root. */
function importsOf(file: string, text: string): string[] {
  const specifier = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g
  return [...text.matchAll(specifier)].map((match) =>
    path.relative(root, path.resolve(root, path.dirname(file), match[1]!)),
  )
}

function everyFile(folder: string): string[] {
  const entries = readdirSync(path.join(root, folder), { withFileTypes: true, recursive: true })
  return entries
    .filter(
      (entry) => entry.isFile() && /\.(?:tsx?|mts|mjs)$/.test(entry.name) && !entry.parentPath.includes('node_modules'),
    )
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
}

t.test('no product file is imported only by tests', async (t) => {
  const importers = new Map<string, Set<string>>()
  const readers = [...productFolders, 'client', 'site', 'bench', 'test'].flatMap(everyFile).concat('vite.config.ts')
  for (const reader of readers) {
    for (const imported of importsOf(reader, readFileSync(path.join(root, reader), 'utf8'))) {
      importers.set(imported, (importers.get(imported) ?? new Set()).add(reader))
    }
  }
  const onlyTests = files
    .map(({ file }) => ({ file, by: [...(importers.get(file) ?? [])] }))
    .filter(({ by }) => by.length > 0 && by.every((reader) => reader.startsWith('test/')))
    .map(({ file }) => file)
  t.same(onlyTests, [], 'product files whose only importers are tests (move them to test/helpers/)')
})

/**
 * The folders of `src/`, lowest first: a folder imports only from folders below it (and from `src/` itself, `config/`
 * and `site/`). Observers (metrics, tracing) stand above the domain they observe; the sender (delivery) above what it
 * sends.
 */
const srcLayers = [
  ['toolbox', 'runtime', 'types', 'common'],
  ['compression', 'content'],
  ['metrics'],
  ['pages'],
  ['shared-state'],
  ['render'],
  ['tracing'],
  ['images'],
  ['delivery'],
  ['build'],
]

t.test('src/ folders import only from folders below them', async (t) => {
  const layerOf = (file: string) => {
    const folder = /^src\/([^/]+)\//.exec(file)?.[1]
    return folder === undefined ? undefined : srcLayers.findIndex((layer) => layer.includes(folder))
  }
  const known = new Set(srcLayers.flat())
  const folders = readdirSync(path.join(root, 'src'), { withFileTypes: true }).filter((entry) => entry.isDirectory())
  t.same(
    folders.map((entry) => entry.name).filter((name) => !known.has(name)),
    [],
    'every folder of src/ has its layer',
  )
  const upwards = files.flatMap(({ file, text }) => {
    const from = layerOf(file)
    if (from === undefined) return []
    return importsOf(file, text)
      .filter((imported) => (layerOf(imported) ?? -1) > from)
      .map((imported) => `${file} -> ${imported}`)
  })
  t.same(upwards, [], 'imports from a lower folder up to a higher one')
})

t.test('deploy/ takes the build through its one entry, src/build/index.ts', async (t) => {
  const reaching = files
    .filter(({ file }) => file.startsWith('deploy/'))
    .flatMap(({ file, text }) =>
      importsOf(file, text)
        .filter((imported) => imported.startsWith('src/build/') && imported !== 'src/build/index.ts')
        .map((imported) => `${file} -> ${imported}`),
    )
  t.same(reaching, [])
})

/**
 * The renderer gives plain bytes and the sender frames them (docs/rendering.md "Who does what"): nothing of
 * `src/render/` knows a content coding, not even its types.
 */
t.test('src/render/ imports nothing of src/compression/', async (t) => {
  const framing = files.flatMap(({ file, text }) =>
    file.startsWith('src/render/')
      ? importsOf(file, text)
          .filter((imported) => imported.startsWith('src/compression/'))
          .map((imported) => `${file} -> ${imported}`)
      : [],
  )
  t.same(framing, [], 'render files that import compression')
})
