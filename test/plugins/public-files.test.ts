/**
 * plugins/public-files.ts: one GET/HEAD route per file of the public folder, found at start-up; dotfiles, folders
 * and paths outside it never served.
 */
import t, { type Test } from 'tap'
import Fastify from 'fastify'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import publicFiles, { publicFilesUnder } from '../../plugins/public-files.ts'

function publicFolder(t: Test): string {
  const root = t.testdir({
    'favicon.ico': 'icon',
    '.env': 'SECRET=1',
    images: { 'a.jpg': 'a', 'b c.jpg': 'b c', '.hidden.jpg': 'h' },
    '.git': { config: 'x' },
  })
  mkdirSync(path.join(root, 'more'))
  writeFileSync(path.join(root, 'more', 'note.txt'), 'note')
  // A link to a folder is followed; a link back up is walked once.
  symlinkSync(path.join(root, 'more'), path.join(root, 'linked'))
  symlinkSync(root, path.join(root, 'more', 'up'))
  symlinkSync(path.join(root, 'missing'), path.join(root, 'dangling'))
  return root
}

t.test('the walk: files only, links followed once, no dotfile or dot-folder', async (t) => {
  const root = publicFolder(t)
  t.same(publicFilesUnder(root), ['favicon.ico', 'images/a.jpg', 'images/b c.jpg', 'linked/note.txt', 'more/note.txt'])
  t.same(publicFilesUnder(path.join(root, 'nowhere')), [], 'a missing folder has none')
})

t.test('each file answers GET and HEAD with its validators; nothing else is served', async (t) => {
  const root = publicFolder(t)
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(publicFiles, { root })
  const icon = await app.inject('/favicon.ico')
  t.equal(icon.statusCode, 200)
  t.equal(icon.body, 'icon')
  t.equal(icon.headers['cache-control'], 'public, max-age=3600, must-revalidate')
  t.ok(icon.headers.etag)
  t.ok(icon.headers['last-modified'])
  const head = await app.inject({ method: 'HEAD', url: '/favicon.ico' })
  t.equal(head.statusCode, 200)
  t.equal(head.body, '')
  const again = await app.inject({ url: '/favicon.ico', headers: { 'if-none-match': String(icon.headers.etag) } })
  t.equal(again.statusCode, 304)
  t.equal((await app.inject('/images/b%20c.jpg')).body, 'b c', 'a name with a space')
  t.equal((await app.inject('/linked/note.txt')).body, 'note')
  for (const url of ['/.env', '/images/.hidden.jpg', '/.git/config', '/images/', '/images', '/images/../.env', '/more/up/favicon.ico', '/dangling']) {
    t.equal((await app.inject(url)).statusCode, 404, url)
  }
  t.equal((await app.inject({ method: 'POST', url: '/favicon.ico' })).statusCode, 404, 'GET and HEAD only')
})
