import t from 'tap'
import { testPage } from '../helpers/page-table.ts'
import { guides } from '../helpers/content.ts'
import type { Loader } from '../../src/common/page-types.ts'
import { loadSite, type ServerPage, type Site } from '../../src/pages/site.ts'
import { joinPartialPage } from '../../src/pages/partial-page.ts'
import { build } from '../helpers/app.ts'
import { testGuidePath, testGuidesPath, testRoutes } from '../helpers/site-pages.ts'

const dataUrl = (id: string, path: string) => `/_next/data/${id}${path}`

/** The data path of a page path (`/a/b` -> `/a/b.json`). */
const json = (pagePath: string) => `${pagePath}.json`

/** The test build's partly prerendered page (test/site/pages/): a kept part, and the request's own `?token=`. */
const partialPath = '/__test/partial'

t.test('static page data: JSON with kind, deployment id, nosniff, strong ETag', async (t) => {
  const { app } = await build(t, testRoutes)
  const id = app.deploymentId
  const cases: Array<[string, (props: Record<string, unknown>) => void]> = [
    [
      json(testGuidesPath),
      (props) =>
        t.same(
          (props.guides as Array<{ slug: string }>).map((guide) => guide.slug),
          guides.map((guide) => guide.slug),
        ),
    ],
    ...guides
      .slice(0, 2)
      .map((guide): [string, (props: Record<string, unknown>) => void] => [
        json(testGuidePath(guide.slug)),
        (props) => t.match(props, { guide: { slug: guide.slug, title: guide.title } }),
      ]),
  ]
  for (const [path, check] of cases) {
    const response = await app.inject({ url: dataUrl(id, path), headers: { 'x-deployment-id': id } })
    t.equal(response.statusCode, 200, path)
    t.equal(response.headers['content-type'], 'application/json; charset=utf-8', path)
    t.equal(response.headers['x-content-type-options'], 'nosniff', path)
    t.equal(response.headers['x-deployment-id'], id, path)
    // Content pages are kept for 60 s (test/site/pages/ `revalidate`): a CDN may share their data as long.
    t.equal(response.headers['cache-control'], 'public, max-age=0, s-maxage=60, stale-while-revalidate=86400', path)
    t.equal(response.headers['x-courier-cache'], 'HIT', path)
    t.match(response.headers.etag, /^"[A-Za-z0-9_-]{27}"$/, `${path}: a strong ETag`)
    const body = response.json() as { pageProps: Record<string, unknown>; kind: string }
    t.equal(body.kind, 'static', path)
    check(body.pageProps)
  }
})

t.test('static data: one ETag for the deployment, 304 on If-None-Match, 200 on a stale tag', async (t) => {
  const { app } = await build(t, testRoutes)
  const url = dataUrl(app.deploymentId, json(testGuidesPath))
  const first = await app.inject(url)
  const etag = first.headers.etag as string
  const second = await app.inject(url)
  t.equal(second.headers.etag, etag, 'the same tag for the same deployment')
  t.equal(second.body, first.body)
  const revalidated = await app.inject({ url, headers: { 'if-none-match': etag } })
  t.equal(revalidated.statusCode, 304)
  t.equal(revalidated.body, '')
  t.equal(revalidated.headers.etag, etag)
  t.equal(revalidated.headers['content-type'], undefined, 'a 304 has no body to type')
  t.equal(
    (await app.inject({ url, headers: { 'if-none-match': `"x", W/${etag}` } })).statusCode,
    304,
    'weak form, in a list',
  )
  t.equal((await app.inject({ url, headers: { 'if-none-match': '"other"' } })).statusCode, 200)
})

t.test('dynamic page data is computed per request and never stored', async (t) => {
  const { app } = await build(t, testRoutes)
  const url = dataUrl(app.deploymentId, json(partialPath))
  const first = await app.inject(`${url}?token=first`)
  t.equal(first.statusCode, 200)
  t.equal(first.headers['cache-control'], 'private, no-cache, no-store, max-age=0, must-revalidate')
  t.notOk(first.headers.etag, 'no validator for per-request data')
  // A partly prerendered page: its data carries both kinds, the kept and the request's own.
  t.match(first.json(), {
    kind: 'dynamic',
    pageProps: { kept: { keptToken: /^[\w-]{36}$/ }, live: { value: { requestToken: 'first' } } },
  })
  const second = await app.inject(`${url}?token=second`)
  const live = (response: typeof first) => response.json().pageProps.live.value.requestToken
  t.equal(live(second), 'second', 'fresh for each request')
  t.equal(second.json().pageProps.kept.keptToken, first.json().pageProps.kept.keptToken, 'the kept part is the same')
})

t.test('unknown pages and loader not-found answers are 404 { notFound: true }, and are not kept', async (t) => {
  const { app } = await build(t, testRoutes)
  // Test pages without test routes have no data either.
  const { app: withoutTestRoutes } = await build(t)
  const asked: Array<[typeof app, string]> = [
    ...[json(testGuidePath('no-such-guide')), '/nothing.json', testGuidesPath, `${testGuidesPath}.html`].map(
      (path): [typeof app, string] => [app, path],
    ),
    [withoutTestRoutes, '/__test/slow.json'],
  ]
  for (const [server, path] of asked) {
    const response = await server.inject(dataUrl(server.deploymentId, path))
    t.equal(response.statusCode, 404, path)
    t.equal(response.headers['content-type'], 'application/json; charset=utf-8', path)
    t.equal(response.headers['cache-control'], 'no-store', path)
    t.same(response.json(), { notFound: true }, path)
  }
})

/** The test build's site with the loader of the page at `pagePath` replaced: the app serves it, nothing shared changes. */
async function siteWith(pagePath: string, load: Loader<unknown>): Promise<Site> {
  // A partly prerendered page keeps its kept loader: `load` is its request-time loader.
  const withLoad = (page: ServerPage) => {
    const keep = page.partial?.kept.load
    return keep ? joinPartialPage(page, keep, load) : { ...page, load }
  }
  const { pages, publicPages } = await loadSite(true)
  return { pages: pages.map((page) => (page.path === pagePath ? withLoad(page) : page)), publicPages }
}

t.test('a loader redirect is answered as data', async (t) => {
  const destination = testGuidePath(guides[0]!.slug)
  const site = await siteWith(testGuidesPath, () => ({ redirect: { destination, permanent: false } }))
  const { app } = await build(t, testRoutes, { site })
  const response = await app.inject(dataUrl(app.deploymentId, json(testGuidesPath)))
  t.equal(response.statusCode, 200)
  t.same(response.json(), { redirect: { destination, permanent: false } })
})

t.test('a failing loader is a 500 in JSON with a digest, never the message', async (t) => {
  const site = await siteWith(partialPath, () => {
    throw new Error('secret database password')
  })
  const { app, logs } = await build(t, testRoutes, { site })
  const response = await app.inject(dataUrl(app.deploymentId, json(partialPath)))
  t.equal(response.statusCode, 500)
  t.match(response.headers['content-type'], /^application\/json/)
  t.notMatch(response.body, 'secret')
  const body = response.json() as { digest: string }
  t.match(body.digest, /^\w+$/)
  t.ok(
    logs().some((line) => line.digest === body.digest && line.msg === 'request failed'),
    'the digest is logged',
  )
})

t.test('a wrong deployment id, in the path or the header, is a 409 skew', async (t) => {
  const { app } = await build(t, testRoutes)
  const id = app.deploymentId
  const cases = [
    { url: dataUrl('other', json(testGuidesPath)), headers: {} },
    { url: dataUrl('other', json(testGuidesPath)), headers: { 'x-deployment-id': id } },
    { url: dataUrl(id, json(testGuidesPath)), headers: { 'x-deployment-id': 'other' } },
    { url: dataUrl(id, json(partialPath)), headers: { 'x-deployment-id': '' } },
  ]
  for (const request of cases) {
    const response = await app.inject(request)
    const what = `${request.url} ${JSON.stringify(request.headers)}`
    t.equal(response.statusCode, 409, what)
    t.equal(response.headers['cache-control'], 'no-store', what)
    t.equal(response.headers['x-deployment-id'], id, what)
    t.match(response.headers['content-type'], /^application\/json/, what)
    t.match(response.json(), { statusCode: 409, code: 'COURIER_ERR_DATA_DEPLOYMENT_SKEW' }, what)
  }
  const plain = await app.inject(dataUrl(id, json(testGuidesPath)))
  t.equal(plain.statusCode, 200, 'no header at all is fine when the path id matches')
})

t.test('HEAD answers the headers of GET without a body', async (t) => {
  const { app } = await build(t, testRoutes)
  const url = dataUrl(app.deploymentId, json(testGuidesPath))
  const get = await app.inject(url)
  const head = await app.inject({ method: 'HEAD', url })
  t.equal(head.statusCode, 200)
  t.equal(head.body, '')
  t.equal(head.headers.etag, get.headers.etag)
  t.equal(head.headers['content-type'], 'application/json; charset=utf-8')
  t.equal(head.headers['x-deployment-id'], app.deploymentId)
})

t.test('other methods are 405 with Allow, before any body is read', async (t) => {
  const { app } = await build(t, testRoutes)
  const url = dataUrl(app.deploymentId, json(testGuidesPath))
  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const) {
    const response = await app.inject({ method, url, headers: { 'content-type': 'text/xml' }, payload: '<x/>' })
    t.equal(response.statusCode, 405, method)
    t.equal(response.headers.allow, 'GET, HEAD', method)
    t.match(response.headers['content-type'], /^application\/json/, method)
    t.match(response.json(), { statusCode: 405, code: 'COURIER_ERR_METHOD_NOT_ALLOWED' }, method)
  }
})

t.test('no cache confusion: HTML URLs answer HTML, data URLs answer JSON, whatever the request says', async (t) => {
  const { app } = await build(t, testRoutes)
  const id = app.deploymentId
  const tricks = [
    { query: '?__nextDataReq=1', headers: {} },
    { query: '', headers: { 'x-nextjs-data': '1' } },
    { query: '', headers: { 'x-middleware-prefetch': '1', purpose: 'prefetch' } },
    { query: '', headers: { accept: 'application/json', 'x-deployment-id': id } },
  ]
  for (const { query, headers } of tricks) {
    const what = `${query} ${JSON.stringify(headers)}`
    for (const path of ['/', testGuidesPath, partialPath]) {
      const html = await app.inject({ url: `${path}${query}`, headers })
      t.equal(html.statusCode, 200, `${path} ${what}`)
      t.match(html.headers['content-type'], /^text\/html/, `${path} ${what}`)
      t.match(html.body, /^<!doctype html>/, `${path} ${what}`)
    }
    for (const path of ['/index.json', json(testGuidesPath), json(partialPath)]) {
      const data = await app.inject({
        url: `${dataUrl(id, path)}${query}`,
        headers: { ...headers, accept: 'text/html' },
      })
      t.equal(data.statusCode, 200, `${path} ${what}`)
      t.equal(data.headers['content-type'], 'application/json; charset=utf-8', `${path} ${what}`)
      t.ok(data.json().pageProps, `${path} ${what}`)
    }
  }
})

t.test('test-only pages have data only when test routes are on', async (t) => {
  const { app } = await build(t, { COURIER_TEST_ROUTES: 'true' })
  const response = await app.inject(dataUrl(app.deploymentId, '/__test/slow.json?delay=7'))
  t.equal(response.statusCode, 200)
  t.same(response.json(), {
    pageProps: { delayMs: 7 },
    kind: 'dynamic',
    head: { title: testPage('test-slow').head({ delayMs: 7 }, {}).title },
  })
})

t.test('beyond the bound of the static cache, data is still served', async (t) => {
  const { app } = await build(t, testRoutes, { limits: { staticPageCacheEntries: 1 } })
  const id = app.deploymentId
  const [one, other] = guides.map((guide) => dataUrl(id, json(testGuidePath(guide.slug))))
  const first = await app.inject(one!)
  const second = await app.inject(other!)
  t.equal(first.statusCode, 200)
  t.equal(second.statusCode, 200, 'beyond the bound the data is still served, computed per request')
  t.equal((await app.inject(other!)).headers.etag, second.headers.etag)
})
