import t from 'tap'
import { loadSite } from '../../src/pages/site.ts'
import { guides, siteContent } from '../helpers/content.ts'
import { build } from '../helpers/app.ts'

t.test('the sitemap lists every page at the configured origin', async (t) => {
  const { app } = await build(t, { SITE_URL: 'https://courier.example' })
  const index = await app.inject('/sitemap.xml')
  t.equal(index.statusCode, 200)
  t.match(index.headers['content-type'], /^application\/xml/)
  t.match(index.body, '<loc>https://courier.example/sitemap-0.xml</loc>')

  const sitemap = await app.inject('/sitemap-0.xml')
  t.equal(sitemap.statusCode, 200)
  const locations = [...sitemap.body.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1])
  const expected = ['/', '/guides', '/status', '/faq', '/gallery', ...guides.map((guide) => `/guides/${guide.slug}`)]
  t.same(new Set(locations), new Set(expected.map((path) => `https://courier.example${path}`)))
  t.notOk(locations.some((location) => location?.includes('__test')), 'test pages are never listed')
})

t.test('robots.txt points at the sitemap; the Host header changes nothing', async (t) => {
  const { app } = await build(t, { SITE_URL: 'https://courier.example' })
  const response = await app.inject({ url: '/robots.txt', headers: { host: 'evil.example' } })
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-type'], /^text\/plain/)
  t.match(response.body, 'Sitemap: https://courier.example/sitemap.xml')
  t.notMatch(response.body, 'evil.example')
})

t.test('a sitemap file that does not exist is a 404', async (t) => {
  const { app } = await build(t)
  t.equal((await app.inject('/sitemap-7.xml')).statusCode, 404)
})

t.test('a site URL that is not an http(s) origin is refused at register time with a coded error', async (t) => {
  const Fastify = (await import('fastify')).default
  const sitemap = (await import('../../plugins/sitemap.ts')).default
  for (const siteUrl of ['courier.example', 'ftp://courier.example', '']) {
    const app = Fastify()
    t.teardown(() => app.close())
    await t.rejects(async () => { await app.register(sitemap, { siteUrl, pages: [], content: siteContent }).ready() }, { code: 'COURIER_ERR_OPTION_INVALID' }, siteUrl)
  }
})

t.test('the sitemap plugin works on a bare instance', async (t) => {
  const Fastify = (await import('fastify')).default
  const sitemap = (await import('../../plugins/sitemap.ts')).default
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(sitemap, { siteUrl: 'https://courier.example/', pages: (await loadSite(false)).pages, content: siteContent })
  const response = await app.inject('/robots.txt')
  t.match(response.body, 'Sitemap: https://courier.example/sitemap.xml', 'a trailing slash is dropped')
})
