import t from 'tap'
import { entryLoaderUrls } from '../../src/render/template.ts'
import { build } from '../helpers/app.ts'

t.test('built assets are immutable for a year; unknown ones are 404 no-store, never HTML', async (t) => {
  const { app } = await build(t)
  const page = await app.inject('/')
  const script = entryLoaderUrls(page.body).entries[0]
  t.ok(script, 'the page starts a module script')
  const asset = await app.inject(script!)
  t.equal(asset.statusCode, 200)
  t.match(asset.headers['content-type'], /javascript/)
  t.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable')

  const missing = await app.inject('/_next/static/chunks/index-00000000.js')
  t.equal(missing.statusCode, 404)
  t.equal(missing.headers['cache-control'], 'no-store')
  t.notMatch(missing.headers['content-type'], /html/)
})

t.test('the build manifest and the document template are not served', async (t) => {
  const { app } = await build(t)
  for (const url of [
    '/_next/static/.vite/manifest.json',
    '/_next/static/index.html',
    '/_next/static/../deployment.json',
  ]) {
    const response = await app.inject(url)
    t.equal(response.statusCode, 404, url)
  }
})

t.test('public files: favicon and images, with validators', async (t) => {
  const { app } = await build(t)
  const favicon = await app.inject('/favicon.ico')
  t.equal(favicon.statusCode, 200)
  t.ok(favicon.headers.etag)
  const again = await app.inject({ url: '/favicon.ico', headers: { 'if-none-match': String(favicon.headers.etag) } })
  t.equal(again.statusCode, 304)
  for (const url of ['/images/', '/images/../package.json', '/images/%2e%2e/package.json', '/.gitignore']) {
    const response = await app.inject(url)
    t.ok([400, 403, 404].includes(response.statusCode), `${url} -> ${response.statusCode}`)
    t.notMatch(response.body, '"name": "courier"', url)
  }
})
