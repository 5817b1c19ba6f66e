/**
 * The seam of docs/compression.md "One seam for the bytes on the wire", kept: no module of rendering, compression,
 * delivery or error formatting holds state of its own at module level (caches belong to objects `buildApp` makes),
 * and `Accept-Encoding` is read and negotiated by the sender alone (with the parser it calls), for every kind of
 * answer, built assets' zstd files and dictionary deltas included.
 */
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '../..')
const sourcesOf = (folder: string) =>
  readdirSync(path.join(root, folder))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => `${folder}/${name}`)

/** A top-level `let`/`var`, or a top-level collection: state every request of every instance would share. */
const moduleState = /^(?:export )?(?:let|var) |^(?:export )?const \w+(?:: [^=]+)? = new (?:Map|WeakMap|Set|WeakSet)\b/m

t.test('no module-level state in rendering, compression, delivery and error formatting', async (t) => {
  const files = [
    ...sourcesOf('src/render'),
    ...sourcesOf('src/compression'),
    ...sourcesOf('src/delivery'),
    'src/error-format.ts',
    'src/errors.ts',
    'src/bounded-cache.ts',
  ]
  t.ok(files.length > 20, `${files.length} files read`)
  for (const file of files) {
    const found = moduleState.exec(readFileSync(path.join(root, file), 'utf8'))
    t.equal(found?.[0], undefined, file)
  }
})

/** Every source file of `folder`, in every folder below it too. */
const allSourcesOf = (folder: string) =>
  readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => /\.tsx?$/.test(name))
    .map((name) => `${folder}/${name.split(path.sep).join('/')}`)

t.test('Accept-Encoding is read and negotiated in the sender alone', async (t) => {
  const files = [...allSourcesOf('plugins'), ...allSourcesOf('src')]
  t.ok(files.length > 100, `${files.length} files read`)
  const textOf = (file: string) => readFileSync(path.join(root, file), 'utf8')
  const negotiators = /\b(?:negotiateCoding|identityAcceptable|dictionaryCoding)(?:<[^>(]*>)?\(/
  t.same(files.filter((file) => negotiators.test(textOf(file))).sort(), [
    'src/compression/negotiate.ts',
    'src/delivery/send.ts',
  ])
  // Named at all (a header read, a Vary set, a comment about it): the sender, and the parser it calls.
  const naming = files.filter((file) => /accept-encoding/i.test(textOf(file)))
  t.same(naming.sort(), ['src/compression/negotiate.ts', 'src/delivery/send.ts'])
})
