/**
 * deploy/linked-copy.ts: a release's own node_modules, made of hard links to the checkout's files. The copy must
 * survive what `npm ci` does to the original (files removed and written anew), keep relative links (node_modules/.bin)
 * pointing inside itself, and leave out what has no place in a package folder.
 */
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { lstatSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import { linkedCopy } from '../../deploy/linked-copy.ts'

t.test('files are hard links, links are kept as written, the copy outlives the original being replaced', async (t) => {
  const root = t.testdir({
    packages: {
      react: { 'index.js': 'v19', 'package.json': '{"name":"react"}' },
      '.bin': {},
      '.package-lock.json': '{}',
    },
  })
  const from = path.join(root, 'packages')
  symlinkSync('../react/index.js', path.join(from, '.bin', 'react'))
  execFileSync('mkfifo', [path.join(from, 'pipe')])
  const to = path.join(root, 'release-packages')
  await linkedCopy(from, to)

  const original = path.join(from, 'react', 'index.js')
  const copied = path.join(to, 'react', 'index.js')
  t.equal(statSync(copied).ino, statSync(original).ino, 'a hard link: no second copy on disk')
  t.equal(readFileSync(path.join(to, '.package-lock.json'), 'utf8'), '{}', 'dotfiles of the folder too')
  t.equal(readlinkSync(path.join(to, '.bin', 'react')), '../react/index.js', 'a relative link, as written')
  t.equal(readFileSync(path.join(to, '.bin', 'react'), 'utf8'), 'v19', 'resolving inside the copy')
  t.throws(() => lstatSync(path.join(to, 'pipe')), 'a FIFO is left out')

  // What `npm ci` does: the folder removed, the packages written anew.
  rmSync(from, { recursive: true })
  t.equal(readFileSync(copied, 'utf8'), 'v19', 'the copy keeps what it was made with')
})

t.test('a copy into a folder that exists already fails, leaving it as it was', async (t) => {
  const root = t.testdir({ from: { 'a.js': 'a' }, to: { 'b.js': 'b' } })
  await t.rejects(linkedCopy(path.join(root, 'from'), path.join(root, 'to')), { code: 'EEXIST' })
  t.equal(readFileSync(path.join(root, 'to', 'b.js'), 'utf8'), 'b')
})
