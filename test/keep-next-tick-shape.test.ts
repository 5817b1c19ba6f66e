import t from 'tap'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { loadConfig } from '../config/env.ts'
import { nextTickRecordKey } from '../src/keep-next-tick-shape.ts'

const root = loadConfig({}).rootDir

t.test('one nextTick record is held by the process from its first tick on', async (t) => {
  await new Promise<void>((resolve) => process.nextTick(resolve))
  const record = (process as unknown as Record<symbol, unknown>)[nextTickRecordKey] as object | undefined
  t.type(record, 'object')
  // Node's record: the async ids under its internal symbols, then the callback and its arguments.
  t.same(Object.keys(record!), ['callback', 'args'])
  t.same(
    Object.getOwnPropertySymbols(record!).map((symbol) => symbol.description),
    ['async_id_symbol', 'trigger_async_id_symbol'],
  )
  t.equal((record as { callback: { name: string } }).callback.name, 'keepNextTickRecord')
})

t.test('the compiled server keeps it too, before any other module body runs', async (t) => {
  // The bundler drops what nothing reads: the record must be held through `process`, and asked for first.
  const entry = await readFile(path.join(root, 'dist', 'node', 'server.js'), 'utf8')
  const statements = entry
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^(import |\/\/|\/\*|\*)/.test(line))
  const asked = statements.findIndex((line) => line.startsWith('process.nextTick(function keepNextTickRecord()'))
  t.ok(asked >= 0 && asked <= 1, 'the first statements ask for the record (after its key)')
  t.match(statements[asked + 1], /Object\.defineProperty\(process, \w+, \{ value: executionAsyncResource\(\) \}\);$/, 'and hold it on process')
})
