/**
 * The seam of docs/compression.md "One seam for the bytes on the wire", kept: no module of rendering, compression,
 * delivery or error formatting holds state of its own at module level (caches belong to objects `buildApp` makes),
 * and `Accept-Encoding` is negotiated by the sender alone, built assets aside (src/render/zstd-assets.ts serves the
 * files compressed at build time beside @fastify/static, src/compression/dictionaries.ts picks a dictionary delta
 * made at build or deploy time).
 */
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '../..')
const sourcesOf = (folder: string) =>
  readdirSync(path.join(root, folder)).filter((name) => name.endsWith('.ts')).map((name) => `${folder}/${name}`)

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

t.test('Accept-Encoding is negotiated in the sender alone', async (t) => {
  const files = [...sourcesOf('plugins'), ...['src', 'src/render', 'src/compression', 'src/delivery', 'src/pages'].flatMap(sourcesOf)]
  const callers = files.filter((file) => /\b(?:negotiateCoding|identityAcceptable)(?:<[^>(]*>)?\(/.test(readFileSync(path.join(root, file), 'utf8')))
  t.same(callers.sort(), ['src/compression/dictionaries.ts', 'src/compression/negotiate.ts', 'src/delivery/send.ts', 'src/render/zstd-assets.ts'])
})
