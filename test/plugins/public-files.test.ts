/**
 * plugins/public-files.ts: the public folder served by @fastify/static at `/`, as it is when asked (a file added or
 * removed while the server runs included); dotfiles, folders and paths outside it never served; routes of their own
 * (robots.txt, the sitemaps) kept apart from files of the same name.
 */
import t, { type Test } from 'tap'
import Fastify from 'fastify'
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { request } from 'node:http'
import publicFiles from '../../plugins/public-files.ts'

function publicFolder(t: Test, links = true): string {
  const root = t.testdir({
    'favicon.ico': 'icon',
    'robots.txt': 'User-agent: *\nDisallow: /\n',
    '.env': 'SECRET=1',
    images: { 'a.jpg': 'a', 'b c.jpg': 'b c', '.hidden.jpg': 'h' },
    '.git': { config: 'x' },
  })
  mkdirSync(path.join(root, 'more'))
  writeFileSync(path.join(root, 'more', 'note.txt'), 'note')
  if (!links) return root
  // A link to a folder is followed; a link to nothing is nothing.
  symlinkSync(path.join(root, 'more'), path.join(root, 'linked'))
  symlinkSync(path.join(root, 'missing'), path.join(root, 'dangling'))
  return root
}

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
  for (const url of [
    '/.env',
    '/images/.hidden.jpg',
    '/.git/config',
    '/images',
    '/images/../.env',
    '/dangling',
    '/nothing.txt',
  ]) {
    t.equal((await app.inject(url)).statusCode, 404, url)
  }
  const folder = await app.inject('/images/')
  t.equal(folder.statusCode, 404, 'a folder asked for as one: no file, the not-found page')
  t.notMatch(folder.body, 'a.jpg', 'no listing')
  t.equal((await app.inject({ method: 'POST', url: '/favicon.ico' })).statusCode, 404, 'GET and HEAD only')
})

t.test('a route of its own wins over a public file of the same name', async (t) => {
  const root = publicFolder(t)
  const app = Fastify()
  t.teardown(() => app.close())
  app.get('/robots.txt', async () => 'from the route')
  await app.register(publicFiles, { root })
  t.equal((await app.inject('/robots.txt')).body, 'from the route')
})

/** A GET over a real connection (no inject): status and body. */
function get(origin: string, pathname: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(new URL(pathname, origin), (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (body += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
    })
      .on('error', reject)
      .end()
  })
}

/** GETs `pathname` until it is served (at most 2 s): a file just written is served once the watcher says so. */
async function getWhenServed(origin: string, pathname: string): Promise<{ status: number; body: string }> {
  const deadline = Date.now() + 2000
  for (;;) {
    const answer = await get(origin, pathname)
    if (answer.status !== 404 || Date.now() > deadline) return answer
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

// Without links to folders, so that missing paths are answered from the folder's index (src/public-file-index.ts).
t.test('a file added while the server runs is served, one removed is a 404', async (t) => {
  const root = publicFolder(t, false)
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(publicFiles, { root })
  const origin = await app.listen({ host: '127.0.0.1', port: 0 })
  t.equal((await get(origin, '/images/new.jpg')).status, 404, 'not there yet')
  writeFileSync(path.join(root, 'images', 'new.jpg'), 'new')
  // Served once the folder's watcher has told the index (src/public-file-index.ts): milliseconds, polled for here.
  t.same(await getWhenServed(origin, '/images/new.jpg'), { status: 200, body: 'new' }, 'added: served')
  mkdirSync(path.join(root, 'later'))
  writeFileSync(path.join(root, 'later', 'file.txt'), 'later')
  t.same(await getWhenServed(origin, '/later/file.txt'), { status: 200, body: 'later' }, 'in a folder added too')
  rmSync(path.join(root, 'images', 'new.jpg'))
  t.equal((await get(origin, '/images/new.jpg')).status, 404, 'removed: a 404')
})
