import t from 'tap'
import type { LightMyRequestResponse } from 'fastify'
import { guides } from '../helpers/content.ts'
import { filterExclusions } from '../../config/request-filter.ts'
import {
  pageInstances,
  siteWithUnfilteredPage,
  testGuidePath,
  testGuidesPath,
  testRoutes,
} from '../helpers/site-pages.ts'
import { build } from '../helpers/app.ts'

/** `nonce-...` of the response's CSP header. */
function nonceOf(response: LightMyRequestResponse): string {
  const nonce = /'nonce-([^']+)'/.exec(String(response.headers['content-security-policy'] ?? ''))?.[1]
  if (!nonce) throw new Error('no nonce in the CSP header')
  return nonce
}

/** The body with the response's own nonce spelled `NONCE`, to compare documents of two requests. */
function withoutNonce(response: LightMyRequestResponse): string {
  // A path excluded from the request filter (config/request-filter.ts): no CSP, no nonce.
  if (!response.headers['content-security-policy']) return response.body
  return response.body.replaceAll(nonceOf(response), 'NONCE')
}

const renderedOnce = (line: { msg: string }) => line.msg === 'document rendered once'

/**
 * The site's kept documents, from its page table and the content the test reads: every static page once (a
 * parametrised one by its first instance), with the document each is logged as; then the 404 page, twice.
 */
const keptPages = (await pageInstances({ firstOnly: true }))
  .filter(({ page }) => page.kind === 'static')
  .map(({ page, params, url }) => ({ url, document: `page:${page.id}:${JSON.stringify(params)}` }))
const keptUrls = [...keptPages.map((page) => page.url), '/no-such-page', testGuidePath('no-such-guide')]

t.test('a kept document is the streamed render, byte for byte, with the same nonce', async (t) => {
  const { app: keeping, logs } = await build(t, testRoutes)
  const { app: streaming } = await build(t, testRoutes, { limits: { staticPageCacheEntries: 0 } })
  for (const url of keptUrls) {
    const first = await keeping.inject(url)
    const kept = await keeping.inject(url)
    const streamed = await streaming.inject(url)
    t.equal(kept.statusCode, streamed.statusCode, url)
    t.equal(withoutNonce(kept), withoutNonce(streamed), `${url}: same bytes as a fresh render`)
    t.equal(withoutNonce(first), withoutNonce(kept), `${url}: the first answer too`)
    for (const name of [
      'content-type',
      'cache-control',
      'x-deployment-id',
      'x-content-type-options',
      'x-frame-options',
    ]) {
      t.equal(kept.headers[name], streamed.headers[name], `${url}: ${name}`)
    }
    t.equal(
      kept.headers['content-length'],
      String(Buffer.byteLength(kept.body)),
      `${url}: a kept document has a length`,
    )
    if (filterExclusions.exactPaths.includes(url))
      t.notMatch(kept.body, ' nonce="', 'an unfiltered path gets the document without nonces')
  }
  const kinds = logs()
    .filter(renderedOnce)
    .map((line) => line.document)
  t.same(
    kinds.sort(),
    ['error:404', ...keptPages.map((page) => page.document)].sort(),
    'one render per page and one for the 404 page',
  )
})

t.test('every request gets its own nonce, on every script and style of the document', async (t) => {
  const { app } = await build(t)
  const responses = [await app.inject('/'), await app.inject('/'), await app.inject('/no-such-page')]
  const nonces = responses.map(nonceOf)
  t.equal(new Set(nonces).size, 3, 'three requests, three nonces')
  for (const [index, response] of responses.entries()) {
    const nonce = nonces[index]!
    const tags = [...response.body.matchAll(/<(script|style|link rel="(?:stylesheet|modulepreload)")[^>]*>/g)].map(
      (match) => match[0],
    )
    t.ok(tags.length >= 3)
    for (const tag of tags) t.match(tag, ` nonce="${nonce}"`, tag)
    for (const other of nonces) if (other !== nonce) t.notMatch(response.body, other, "no other request's nonce")
    t.notMatch(response.body, 'courier-nonce-', 'the placeholder never reaches a response')
  }
})

t.test('concurrent first requests share one render', async (t) => {
  const { app, logs } = await build(t, testRoutes)
  const url = testGuidePath(guides[1]!.slug)
  const responses = await Promise.all(Array.from({ length: 8 }, () => app.inject(url)))
  for (const response of responses) t.equal(response.statusCode, 200)
  t.equal(new Set(responses.map(withoutNonce)).size, 1, 'the same document for all')
  t.equal(logs().filter(renderedOnce).length, 1, 'rendered once')
})

t.test('the number of kept documents is bounded: past it, the least recently asked-for page goes', async (t) => {
  const { app, logs } = await build(t, testRoutes, { limits: { staticPageCacheEntries: 2 } })
  for (const guide of guides.slice(0, 4)) {
    const first = await app.inject(testGuidePath(guide.slug))
    const again = await app.inject(testGuidePath(guide.slug))
    t.equal(first.statusCode, 200)
    t.equal(withoutNonce(first), withoutNonce(again))
  }
  t.equal(logs().filter(renderedOnce).length, 4, 'each kept in its turn, its document rendered once')
  await app.inject(testGuidePath(guides[0]!.slug))
  t.equal(logs().filter(renderedOnce).length, 5, 'the first, pushed out since, is loaded and rendered again')
})

t.test('unknown slugs are never kept: their not-found answer is the one 404 document', async (t) => {
  const { app, logs } = await build(t, testRoutes)
  for (let index = 0; index < 20; index++) {
    const response = await app.inject(testGuidePath(`missing-${index}`))
    t.equal(response.statusCode, 404)
  }
  t.same(
    logs()
      .filter(renderedOnce)
      .map((line) => line.document),
    ['error:404'],
  )
})

t.test('a query cannot change a kept document; dynamic pages still render per request', async (t) => {
  const { app, logs } = await build(t, testRoutes)
  const plain = await app.inject(testGuidesPath)
  const queried = await app.inject(`${testGuidesPath}?layout=grid&x=%3Cscript%3E`)
  t.equal(withoutNonce(plain), withoutNonce(queried))
  // A partly prerendered page: its request-time part (here the request's own ?token=) is rendered per request.
  const dynamic = [await app.inject('/__test/partial?token=first'), await app.inject('/__test/partial?token=second')]
  t.not(withoutNonce(dynamic[0]!), withoutNonce(dynamic[1]!), 'the dynamic page is rendered per request')
  t.notOk(logs().some((line) => renderedOnce(line) && String(line.document).startsWith('page:test-partial')))
})

t.test('HEAD answers from the kept document like GET, without a body', async (t) => {
  const { site, path } = await siteWithUnfilteredPage()
  const { app } = await build(t, testRoutes, { site })
  const get = await app.inject(path)
  const head = await app.inject({ method: 'HEAD', url: path })
  t.equal(head.statusCode, 200)
  t.equal(head.body, '')
  t.equal(head.headers['content-type'], get.headers['content-type'])
  t.equal(head.headers['cache-control'], get.headers['cache-control'])
  t.equal(head.headers['content-length'], get.headers['content-length'])
  const notFound = await app.inject({ method: 'HEAD', url: '/no-such-page' })
  t.equal(notFound.statusCode, 404)
  t.equal(notFound.body, '')
})

t.test('kept answers still get their access line, with the request id', async (t) => {
  const { app, logs } = await build(t)
  await app.inject('/')
  const response = await app.inject('/')
  const line = logs().find(
    (entry) => entry.msg === 'request completed' && entry.reqId === response.headers['x-request-id'],
  )
  t.ok(line)
  t.equal(line?.statusCode, 200)
})

t.test('error pages with a digest render per request', async (t) => {
  const { app, logs } = await build(t, { COURIER_TEST_ROUTES: 'true' })
  const first = await app.inject('/__test/server-error')
  const second = await app.inject('/__test/server-error')
  t.equal(first.statusCode, 500)
  t.not(withoutNonce(first), withoutNonce(second), 'each carries its own digest')
  t.notOk(logs().some((line) => renderedOnce(line) && String(line.document).startsWith('error:500')))
})
