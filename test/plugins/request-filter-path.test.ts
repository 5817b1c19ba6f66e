/**
 * The filter's reading of a request target (src/site-policy-path.ts) and its compiled exclusions, on their own: the
 * pathname each target is judged as, and the CSP header template. The app-level table is request-filter.test.ts.
 */
import t from 'tap'
import { filterExclusions } from '../../config/request-filter.ts'
import { compileExclusions, judgePath } from '../../src/site-policy-path.ts'
import { compilePattern } from '../../src/common/match.ts'
import { cspTemplate, createNonceStep, createRedirectStep } from '../../src/site-policy.ts'
import type { FastifyRequest } from 'fastify'

t.test('targets are read as the router reads them', async (t) => {
  const cases: Array<[string, string, boolean]> = [
    ['/', '/', false],
    ['/things/', '/things', false],
    ['/%74hings/a?x=%zz', '/things/a', false],
    ['/things/a%3Bb', '/things/a%3Bb', false],
    ['/things/%25', '/things/%25', false],
    ['/things/%2525', '/things/%2525', false],
    ['/caf%C3%A9', '/café', false],
    ['/about#x/../y', '/about', false],
    ['http://host', '/', false],
    ['http://host?q=/about', '/', false],
    ['https://host:8443/about/', '/about', false],
    ['/_next/data/id/index.json', '/', true],
    ['/_next/data/id/things/a.json', '/things/a', true],
    ['/_next/data/id/about.json/', '/about', true],
    ['/_next/data/id/about', '/about', true],
    ['/_next/data/id', '/', true],
    ['/_next/datax/id/about.json', '/_next/datax/id/about.json', false],
  ]
  for (const [target, pathname, pageData] of cases) {
    t.same(judgePath(target), { kind: 'path', pathname, pageData }, target)
  }
})

t.test('targets that could be read two ways are refused, with a reason', async (t) => {
  for (const target of [
    '//a',
    '/a//',
    '/a/./b',
    '/a/%2E',
    '/a%2fb',
    '/a%5cb',
    '/a\\b',
    '/a%7F',
    '/a%1f',
    '*',
    '*/about',
    'ftp://h/about',
    'http://#/about',
    'http:///about',
    '/%',
  ]) {
    const judged = judgePath(target)
    t.equal(judged.kind, 'invalid', target)
    if (judged.kind === 'invalid') t.type(judged.reason, 'string')
  }
})

t.test('exclusions match whole segments; shape rules yield to pages', async (t) => {
  // Pages named by an exclusion (config/request-filter.ts) stay excluded; the shape rules yield to the other pages.
  const named = filterExclusions.exactPaths
  const isExcluded = compileExclusions(['/', '/things/:name', ...named, '/:section/:file'])
  for (const path of named) t.ok(isExcluded(path.length > 1 ? path.replace(/\/$/, '') : path), path)
  t.ok(isExcluded('/api'))
  t.ok(isExcluded('/images/a/b'))
  t.ok(isExcluded('/sitemap-3.xml'))
  t.ok(isExcluded('/a.svg'))
  t.notOk(isExcluded('/things/a.svg'), '/things/:name matches')
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
    if (outcome.action === 'continue')
      t.equal(outcome.headers?.['content-security-policy'], parts.join(request.cspNonce!))
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
  t.same(step(request, { pathname: '/old/a b', pageData: false }), {
    action: 'redirect',
    location: '/new/a%20b?y=1',
    permanent: false,
  })
  t.same(step(request, { pathname: '/other', pageData: false }), { action: 'continue' })
})
