import t from 'tap'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { loadConfig } from '../config/env.ts'
import { nextTickRecordKey } from '../src/keep-next-tick-shape.ts'

const root = loadConfig({}).rootDir

t.test('one nextTick record is held by the process from its first tick on', async (t) => {
  await new Promise<void>((resolve) => process.nextTick(resolve))
  const record = (process as unknown as Record<symbol, unknown>)[nextTickRecordKey] as object | undefined
  t.type(record, 'object')
  // Node's record: the async ids under its internal symbols (and, since Node 24, the async context frame), then the
  // callback and its arguments.
  t.same(Object.keys(record!), ['callback', 'args'])
  t.same(
    Object.getOwnPropertySymbols(record!).map((symbol) => symbol.description),
    ['async_id_symbol', 'trigger_async_id_symbol', 'kAsyncContextFrame'],
  )
  t.equal((record as { callback: { name: string } }).callback.name, 'keepNextTickRecord')
})

t.test('the compiled server keeps it too, before any other module body runs', async (t) => {
  // The entry checks the Node line, then imports this module's chunk before the server's: the bundler drops what
  // nothing reads, so the record must be held through `process`, and asked for first in its chunk.
  const nodeDir = path.join(root, 'dist', 'node')
  const entry = await readFile(path.join(nodeDir, 'server.js'), 'utf8')
  const chunkNames = (await readdir(path.join(nodeDir, 'chunks'))).filter((name) => name.endsWith('.js'))
  const chunkName = chunkNames.find((name) => name.startsWith('keep-next-tick-shape-'))
  const mainName = chunkNames.find((name) => name.startsWith('main-'))
  t.ok(chunkName && mainName, 'the record and the server are chunks of their own')
  const importedAt = (name: string) => entry.indexOf(`import("./chunks/${name}")`)
  t.ok(importedAt(chunkName!) >= 0 && importedAt(chunkName!) < importedAt(mainName!), 'the entry imports the record before the server')
  const statements = (await readFile(path.join(nodeDir, 'chunks', chunkName!), 'utf8'))
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^(import |\/\/|\/\*|\*)/.test(line) && !/\b(require|\w*CreateRequire)\(/.test(line))
  const asked = statements.findIndex((line) => line.startsWith('process.nextTick(function keepNextTickRecord()'))
  t.ok(asked >= 0 && asked <= 1, 'the first statements ask for the record (after its key)')
  t.match(statements[asked + 1], /Object\.defineProperty\(process, \w+, \{ value: executionAsyncResource\(\) \}\);$/, 'and hold it on process')
})
