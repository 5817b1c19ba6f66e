import t from 'tap'
import { loadSite, type ServerPage } from '../../src/pages/site.ts'
import { guides, siteContent } from '../helpers/content.ts'
import { build } from '../helpers/app.ts'
import { pageInstances } from '../helpers/site-pages.ts'

/** The sitemap's `<loc>` URLs. */
function locationsOf(xml: string): string[] {
  return [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]!)
}

t.test(
  "the site's sitemap lists every public page of its table at the configured origin, and no test page",
  async (t) => {
    const { app } = await build(t, { SITE_URL: 'https://courier.example' })
    const index = await app.inject('/sitemap.xml')
    t.equal(index.statusCode, 200)
    t.match(index.headers['content-type'], /^application\/xml/)
    t.match(index.body, '<loc>https://courier.example/sitemap-0.xml</loc>')

    const sitemap = await app.inject('/sitemap-0.xml')
    t.equal(sitemap.statusCode, 200)
    const locations = locationsOf(sitemap.body)
    // Derived from the page table and the content the test reads, whatever pages the site has: a page without
    // parameters once, a parametrised one once per instance its staticParams names.
    const expected = (await pageInstances()).map((instance) => instance.url)
    t.ok(expected.length > 0)
    t.same(new Set(locations), new Set(expected.map((path) => `https://courier.example${path}`)))
    t.equal(locations.length, expected.length, 'each page once')
    t.notOk(
      locations.some((location) => location.includes('__test')),
      'test pages are never listed',
    )
  },
)

t.test(
  'the sitemap plugin on pages of its own: parameters expanded through staticParams, encoded; none without',
  async (t) => {
    const Fastify = (await import('fastify')).default
    const sitemap = (await import('../../plugins/sitemap.ts')).default
    const head = () => ({ title: 'A page' })
    const pages: ServerPage[] = [
      { id: 'one', path: '/one', kind: 'static', head },
      { id: 'now', path: '/now', kind: 'dynamic', head },
      // Instances from the content the plugin is given: one per guide of the tests' own content.
      {
        id: 'thing',
        path: '/things/:name',
        kind: 'static',
        head,
        staticParams: async ({ content }) => (await content.guideSummaries()).map((guide) => ({ name: guide.slug })),
      },
      { id: 'spaced', path: '/spaced/:name', kind: 'static', head, staticParams: () => [{ name: 'a b&c' }] },
      { id: 'unlisted', path: '/unlisted/:name', kind: 'dynamic', head },
    ]
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(sitemap, { siteUrl: 'https://courier.example', pages, content: siteContent })
    const locations = locationsOf((await app.inject('/sitemap-0.xml')).body)
    t.same(locations, [
      'https://courier.example/one',
      'https://courier.example/now',
      ...guides.map((guide) => `https://courier.example/things/${guide.slug}`),
      'https://courier.example/spaced/a%20b%26c',
    ])
  },
)

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
    await t.rejects(
      async () => {
        await app.register(sitemap, { siteUrl, pages: [], content: siteContent }).ready()
      },
      { code: 'COURIER_ERR_OPTION_INVALID' },
      siteUrl,
    )
  }
})

t.test('the sitemap plugin works on a bare instance', async (t) => {
  const Fastify = (await import('fastify')).default
  const sitemap = (await import('../../plugins/sitemap.ts')).default
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(sitemap, {
    siteUrl: 'https://courier.example/',
    pages: (await loadSite(false)).pages,
    content: siteContent,
  })
  const response = await app.inject('/robots.txt')
  t.match(response.body, 'Sitemap: https://courier.example/sitemap.xml', 'a trailing slash is dropped')
})
