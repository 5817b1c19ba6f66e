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
  // The compiled code is minified: string literals may take any quote, and statements share a line.
  const importedAt = (name: string) =>
    entry.search(new RegExp(`import\\(["'\`]\\./chunks/${name.replace(/[.-]/g, '\\$&')}["'\`]\\)`))
  t.ok(
    importedAt(chunkName!) >= 0 && importedAt(chunkName!) < importedAt(mainName!),
    'the entry imports the record before the server',
  )
  const code = await readFile(path.join(nodeDir, 'chunks', chunkName!), 'utf8')
  const asked = code.indexOf('process.nextTick(function keepNextTickRecord(')
  t.ok(asked >= 0, 'the chunk asks for the record')
  // Before it, only the loading of node:async_hooks and the record's key: no other call runs first.
  const before = code
    .slice(0, asked)
    .replace(/import\s*\{[^}]*\}\s*from\s*["'`]node:module["'`]/g, '')
    .replace(/[\w$]+\(\s*import\.meta\.url\s*\)/g, '')
    .replace(/[\w$]*\(\s*["'`]node:async_hooks["'`]\s*\)/g, '')
    .replace(/Symbol\.for\(\s*["'`][\w.]+["'`]\s*\)/g, '')
  t.notMatch(before, /\(/, 'the first statements ask for the record (after its key)')
  t.match(
    code.slice(asked),
    /Object\.defineProperty\(\s*process\s*,\s*[\w$]+\s*,\s*\{\s*value\s*:\s*[\w$]+\(\)\s*\}\s*\)/,
    'and hold it on process',
  )
})
