/**
 * src/public-file-index.ts: which paths of the public folder surely name no file, known without the disk; it only
 * ever says "missing" when it is sure, and leaves everything else to @fastify/static.
 */
import t, { type Test } from 'tap'
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { PublicFileIndex } from '../src/public-file-index.ts'
import { pino } from 'pino'
import { until } from './helpers/until.ts'

function indexOf(t: Test, root: string): PublicFileIndex {
  const index = new PublicFileIndex(root, pino({ level: 'silent' }))
  index.start()
  t.teardown(() => index.close())
  return index
}

t.test(
  'once walked, a path that names no file is known missing; files, dotfiles and odd spellings are not',
  async (t) => {
    const root = t.testdir({ 'favicon.ico': 'i', images: { 'a b.jpg': 'a' }, '.env': 's' })
    const index = indexOf(t, root)
    await until('the first walk', () => index.knowsMissing('/nothing.png') || undefined, 5000)
    t.notOk(index.knowsMissing('/favicon.ico'))
    t.notOk(index.knowsMissing('/images/a%20b.jpg'), 'decoded before the look-up')
    t.ok(index.knowsMissing('/images'), 'a folder is no file')
    t.ok(index.knowsMissing('/images/a%2520b.jpg'), 'decoded once')
    for (const left of ['/.env', '/images/', '//favicon.ico', '/images/../favicon.ico', '/%E0%A4%A', '/a%00b']) {
      t.notOk(index.knowsMissing(left), `${left}: @fastify/static's to judge`)
    }
  },
)

t.test('a file added is known once the watcher says so, a file removed is never said missing before', async (t) => {
  const root = t.testdir({ 'a.txt': 'a' })
  const index = indexOf(t, root)
  await until('the first walk', () => index.knowsMissing('/later/b.txt') || undefined, 5000)
  mkdirSync(path.join(root, 'later'))
  writeFileSync(path.join(root, 'later', 'b.txt'), 'b')
  // Fresh again (it knows a missing path) and it knows the new file.
  const fresh = () => index.knowsMissing('/nothing.txt')
  await until('the new file', () => (fresh() && !index.knowsMissing('/later/b.txt')) || undefined, 5000)
  rmSync(path.join(root, 'a.txt'))
  await until('the removal', () => index.knowsMissing('/a.txt') || undefined, 5000)
  t.pass('added and removed files followed')
})

t.test('a link to a folder, or no folder at all: nothing is said missing', async (t) => {
  const linked = t.testdir({ real: { 'x.txt': 'x' } })
  symlinkSync(path.join(linked, 'real'), path.join(linked, 'alias'))
  const index = indexOf(t, linked)
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.notOk(index.knowsMissing('/nothing.txt'), 'a link to a folder: its content has no watcher here')
  const none = indexOf(t, path.join(linked, 'no-such-folder'))
  t.notOk(none.knowsMissing('/nothing.txt'), 'no folder: @fastify/static answers')
})
