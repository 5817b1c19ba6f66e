/**
 * The filter's reading of a request target (src/site-policy-path.ts) and its compiled exclusions, on their own: the
 * pathname each target is judged as, and the CSP header template. The app-level table is request-filter.test.ts.
 */
import t from 'tap'
import { compileExclusions, judgePath } from '../../src/site-policy-path.ts'
import { compilePattern } from '../../site/match.ts'
import { cspTemplate, createNonceStep, createRedirectStep } from '../../src/site-policy.ts'
import type { FastifyRequest } from 'fastify'

t.test('targets are read as the router reads them', async (t) => {
  const cases: Array<[string, string, boolean]> = [
    ['/', '/', false],
    ['/guides/', '/guides', false],
    ['/%67uides/a?x=%zz', '/guides/a', false],
    ['/guides/a%3Bb', '/guides/a%3Bb', false],
    ['/guides/%25', '/guides/%25', false],
    ['/guides/%2525', '/guides/%2525', false],
    ['/caf%C3%A9', '/café', false],
    ['/faq#x/../y', '/faq', false],
    ['http://host', '/', false],
    ['http://host?q=/faq', '/', false],
    ['https://host:8443/faq/', '/faq', false],
    ['/_next/data/id/index.json', '/', true],
    ['/_next/data/id/guides/a.json', '/guides/a', true],
    ['/_next/data/id/faq.json/', '/faq', true],
    ['/_next/data/id/faq', '/faq', true],
    ['/_next/data/id', '/', true],
    ['/_next/datax/id/faq.json', '/_next/datax/id/faq.json', false],
  ]
  for (const [target, pathname, pageData] of cases) {
    t.same(judgePath(target), { kind: 'path', pathname, pageData }, target)
  }
})

t.test('targets that could be read two ways are refused, with a reason', async (t) => {
  for (const target of ['//a', '/a//', '/a/./b', '/a/%2E', '/a%2fb', '/a%5cb', '/a\\b', '/a%7F', '/a%1f', '*', '*/faq', 'ftp://h/faq', 'http://#/faq', 'http:///faq', '/%']) {
    const judged = judgePath(target)
    t.equal(judged.kind, 'invalid', target)
    if (judged.kind === 'invalid') t.type(judged.reason, 'string')
  }
})

t.test('exclusions match whole segments; shape rules yield to pages', async (t) => {
  const isExcluded = compileExclusions(['/', '/guides/:slug', '/faq', '/:section/:file'])
  t.ok(isExcluded('/faq'))
  t.ok(isExcluded('/api'))
  t.ok(isExcluded('/images/a/b'))
  t.ok(isExcluded('/sitemap-3.xml'))
  t.ok(isExcluded('/a.svg'))
  t.notOk(isExcluded('/guides/a.svg'), '/guides/:slug matches')
  t.notOk(isExcluded('/x/sitemap-3.xml'), '/:section/:file matches')
  t.notOk(isExcluded('/apix'))
  t.notOk(isExcluded('/a.SVG'), 'case-sensitive, like the router')
})

t.test('router patterns match whole paths, literal parts literally', async (t) => {
  t.ok(compilePattern('/a.b/:id')('/a.b/1'))
  t.notOk(compilePattern('/a.b/:id')('/axb/1'), 'the dot is literal')
  t.notOk(compilePattern('/a/:id')('/a/1/2'), 'a parameter is one segment')
  t.notOk(compilePattern('/a/:id')('/x/a/1'), 'anchored')
})

t.test('the CSP header is built once around the nonce', async (t) => {
  const { parts } = cspTemplate()
  t.equal(parts.length, 3, 'the nonce in two places: script-src and style-src')
  t.equal(parts[0], "script-src 'nonce-")
  t.match(parts[1], /^' 'strict-dynamic'; default-src 'self'; style-src 'self' 'nonce-$/)
  const step = createNonceStep()
  const request = {} as FastifyRequest
  const seen = new Set<string>()
  for (let index = 0; index < 600; index++) {
    const outcome = step(request, { pathname: '/', pageData: false })
    t.equal(outcome.action, 'continue')
    seen.add(request.cspNonce!)
    if (outcome.action === 'continue') t.equal(outcome.headers?.['content-security-policy'], parts.join(request.cspNonce!))
  }
  t.equal(seen.size, 600, 'no nonce twice, across pool refills')
})

t.test('redirect parameters cannot inject a second path or a replacement pattern', async (t) => {
  const step = createRedirectStep([{ from: '/old/:slug', to: '/new/:slug', permanent: false }])
  const request = { url: '/old/x?y=1' } as FastifyRequest
  t.same(step(request, { pathname: '/old/$&$1', pageData: false }), {
    action: 'redirect',
    location: '/new/$&$1?y=1',
    permanent: false,
  })
  t.same(step(request, { pathname: '/old/a b', pageData: false }), { action: 'redirect', location: '/new/a%20b?y=1', permanent: false })
  t.same(step(request, { pathname: '/other', pageData: false }), { action: 'continue' })
})
