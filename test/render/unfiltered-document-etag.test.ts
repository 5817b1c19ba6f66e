/**
 * A kept document without a nonce (a static page on a path the request filter leaves alone, docs/request-filter.md
 * "Exclusions") is the same bytes for everyone: a strong ETag per coding, the same on every instance, and 304 for a
 * revisit. A nonce-bearing document never gets one. The unfiltered page is a kept page of the test build's, put on the
 * path the filter excludes by name (test/helpers/site-pages.ts); the filtered ones are the site's static pages.
 */
import t from 'tap'
import { filterExclusions } from '../../config/request-filter.ts'
import { loadSite } from '../../src/pages/site.ts'
import { build } from '../helpers/app.ts'
import { siteWithUnfilteredPage, testRoutes } from '../helpers/site-pages.ts'

const { pages } = await loadSite(false)
const { site, path: unfilteredPath } = await siteWithUnfilteredPage()
const unfiltered = [{ path: unfilteredPath }]
const filtered = pages.filter(
  (page) => page.kind === 'static' && !page.path.includes(':') && !filterExclusions.exactPaths.includes(page.path),
)

t.test('an unfiltered kept document: one ETag per coding, equal across instances, 304 on If-None-Match', async (t) => {
  const first = await build(t, testRoutes, { site })
  const second = await build(t, testRoutes, { site })
  for (const page of unfiltered) {
    const tags = new Map<string, string>()
    for (const coding of ['identity', 'gzip', 'br', 'zstd']) {
      const headers = { 'accept-encoding': coding }
      const [one, other] = [
        await first.app.inject({ url: page.path, headers }),
        await second.app.inject({ url: page.path, headers }),
      ]
      t.equal(one.statusCode, 200, `${page.path} ${coding}`)
      t.match(one.headers.etag, /^"[\w-]+"$/, `${page.path} ${coding}: a strong ETag`)
      t.equal(other.headers.etag, one.headers.etag, `${page.path} ${coding}: the same on another instance`)
      tags.set(coding, String(one.headers.etag))
      const revisit = await first.app.inject({
        url: page.path,
        headers: { ...headers, 'if-none-match': String(one.headers.etag) },
      })
      t.equal(revisit.statusCode, 304, `${page.path} ${coding}: 304 for a revisit`)
      t.equal(revisit.body, '', 'without a body')
      t.equal(revisit.headers['cache-control'], one.headers['cache-control'], 'with its Cache-Control')
      t.equal(revisit.headers['content-type'], undefined, 'without Content-Type: there is no body to type')
    }
    t.equal(new Set(tags.values()).size, 4, `${page.path}: one tag per coding`)
  }
})

t.test('a document carrying a nonce gets no ETag', async (t) => {
  const { app } = await build(t)
  for (const page of filtered) {
    const response = await app.inject(page.path)
    t.equal(response.statusCode, 200, page.path)
    t.match(response.body, ' nonce="', `${page.path} carries a nonce`)
    t.equal(response.headers.etag, undefined, `${page.path}: no ETag`)
  }
})
