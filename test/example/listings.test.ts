/**
 * The example's listings at scale (docs/content.md "How many pages"): `/guides` and `/guides/page/<n>` are pages of a
 * fixed size whatever the number of guides, with their own page data, and the sitemap lists them and every guide
 * with its `lastmod`, from the index of the guides.
 */
import t, { type Test } from 'tap'
import { build } from '../helpers/app.ts'
import { contentWithMoreGuides } from '../helpers/content.ts'

async function listingBytes(t: Test, extra: number) {
  const { app } = await build(t, { CONTENT_DIR: await contentWithMoreGuides(t, extra) })
  const sizes: Record<string, number> = {}
  for (const path of ['/', '/guides', '/guides/page/2']) {
    const response = await app.inject(path)
    t.equal(response.statusCode, extra > 100 || path !== '/guides/page/2' ? 200 : 404, `${path} with ${extra} more`)
    sizes[path] = response.body.length
  }
  return { app, sizes }
}

t.test('listing pages do not grow with the number of guides', async (t) => {
  const few = (await listingBytes(t, 3)).sizes
  const { app, sizes: many } = await listingBytes(t, 500)
  for (const path of ['/', '/guides']) {
    t.ok(many[path]! < few[path]! * 3, `${path}: ${few[path]} bytes with 13 guides, ${many[path]} with 510`)
  }
  t.ok(many['/guides/page/2']! < many['/guides']! * 1.5, `/guides/page/2: ${many['/guides/page/2']} bytes`)
  const data = await app.inject(`/_next/data/${app.deploymentId}/guides/page/2.json`)
  t.equal(data.statusCode, 200, 'its own page data')
  t.equal(data.json().pageProps.page, 2)
  t.equal((await app.inject('/guides/page/1')).statusCode, 404, 'page 1 is /guides')
  t.equal((await app.inject('/guides/page/999')).statusCode, 404, 'no page past the last')
  t.equal((await app.inject('/guides/page/x')).statusCode, 404)

  const sitemap = (await app.inject('/sitemap-0.xml')).body
  const entries = [...sitemap.matchAll(/<url><loc>([^<]+)<\/loc>(?:<lastmod>([^<]+)<\/lastmod>)?<\/url>/g)].map(
    (match) => [new URL(match[1]!).pathname, match[2]] as const,
  )
  const lastmod = new Map(entries)
  t.ok(lastmod.get('/guides/page/2'), 'the second listing page, with its lastmod')
  t.ok(lastmod.get('/guides/generated-guide-1'), 'a guide, with its lastmod')
  const guides = entries.filter(([path]) => /^\/guides\/(?!page\/)[^/]+$/.test(path))
  t.equal(guides.length, 510, 'every guide')
  t.ok(
    guides.every(([, date]) => date !== undefined && !Number.isNaN(Date.parse(date))),
    'each with a date',
  )
})
