/**
 * A chunk whose name stayed while its bytes changed (a name hashes the code before the build stamps `?dpl=<id>` on its
 * imports): the browser that kept the older file offers it for the newer one, so the newer one gets its deltas
 * against it. A chunk whose bytes stayed too gets none (the browser would fetch it under the new `?dpl=` anyway, but
 * a delta against itself is not what a deploy writes).
 */
import t from 'tap'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { decodeDelta, writeDeltas } from '../../src/build/dictionary-deltas.ts'
import { deltaHeaderBytes, sha256 } from '../../src/compression/dictionaries.ts'

/** Script text long enough for a delta to beat brotli on its own; `variant` changes one import line. */
function script(variant: string): Buffer {
  const lines = [`import { start } from "./index-AbCdEfGh.js?dpl=${variant}"`]
  for (let index = 0; index < 300; index += 1)
    lines.push(`export function part${index}(value) { return start(value * ${index} + ${index % 7}) }`)
  return Buffer.from(lines.join('\n'))
}

t.test('same name, other bytes: deltas against the older file; same name, same bytes: none', async (t) => {
  const root = await mkdtemp(path.join(tmpdir(), 'courier-same-name-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const [older, newer] = [path.join(root, 'a'), path.join(root, 'b')]
  for (const folder of [older, newer]) await mkdir(folder)
  await writeFile(path.join(older, 'page-AAAAAAAA.js'), script('deployment-a'))
  await writeFile(path.join(newer, 'page-AAAAAAAA.js'), script('deployment-b'))
  await writeFile(path.join(older, 'kept-BBBBBBBB.js'), script('same'))
  await writeFile(path.join(newer, 'kept-BBBBBBBB.js'), script('same'))

  const report = await writeDeltas(newer, [path.join(older, 'page-AAAAAAAA.js'), path.join(older, 'kept-BBBBBBBB.js')])
  t.same(
    report.written
      .map((delta) => `${delta.chunk} ${delta.coding} against ${path.relative(root, delta.dictionary)}`)
      .sort(),
    ['page-AAAAAAAA.js dcb against a/page-AAAAAAAA.js', 'page-AAAAAAAA.js dcz against a/page-AAAAAAAA.js'],
    'deltas for the changed file against its older bytes only',
  )
  const dictionary = await readFile(path.join(older, 'page-AAAAAAAA.js'))
  const hash = sha256(dictionary).toString('hex')
  for (const coding of ['dcb', 'dcz'] as const) {
    const file = `page-AAAAAAAA.js.${hash}.${coding}`
    t.ok((await readdir(newer)).includes(file), `${file}: named by the older bytes' hash, as the browser asks`)
    const delta = await readFile(path.join(newer, file))
    // The older bytes did the work: a tenth of the file at most (one import line differs).
    const size = script('deployment-b').length
    t.ok(delta.length - deltaHeaderBytes(coding) < size / 10, `${coding}: ${delta.length} B for ${size} B`)
    t.ok(
      (await decodeDelta(coding, delta, dictionary)).equals(await readFile(path.join(newer, 'page-AAAAAAAA.js'))),
      `${coding} decodes to the newer file`,
    )
  }
})
