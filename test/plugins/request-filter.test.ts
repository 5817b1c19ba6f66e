/**
 * The request filter (docs/request-filter.md): which paths get the site policy, what the policy sends, and that no path
 * variant or header gets a page (or its data) past it. Paths go over real sockets exactly as written: inject parses
 * them with the WHATWG URL parser, which resolves dot segments and would hide the very bugs looked for here.
 */
import http from 'node:http'
import t, { type Test } from 'tap'
import type { FastifyRequest } from 'fastify'
import { build, type Built, type LogLine } from '../helpers/app.ts'
import { listen } from '../helpers/http.ts'
import { guides } from '../helpers/content.ts'
import { pageTable } from '../../site/pages.ts'
import type { PolicyStep } from '../../src/site-policy.ts'

/** A deployment id for data URLs; the filter judges the page path whatever the id. */
const id = 'dpl-test'

/**
 * - applied: the site policy ran (CSP with a fresh nonce, document headers; the access line says `applied`).
 * - excluded: no policy (no CSP), static headers only; the access line says `excluded`.
 * - refused: the filter answers 400 (COURIER_ERR_FILTER_PATH_INVALID), its error page filtered.
 * - bad-url: the router itself answers 400 (FST_ERR_BAD_URL) before any hook: no route, no page; the filter's
 *   decision and headers still come with the error page (buildApp's frameworkErrors asks the filter).
 */
type Expected = 'applied' | 'excluded' | 'refused' | 'bad-url'

// prettier-ignore
const pathTable: ReadonlyArray<readonly [rawPath: string, expected: Expected, why: string]> = [
  // Pages and their variants: the router reaches the page, so does the filter.
  ['/',                                   'applied',  'home page'],
  ['/guides',                             'applied',  'guides page'],
  ['/guides/knot-tying',                  'applied',  'a guide'],
  ['/guides/knot-tying/',                 'applied',  'trailing slash: the router ignores one'],
  ['/status?x=1',                         'applied',  'query string'],
  ['/%67uides/knot-tying',                'applied',  'encoded letter: decoded like the router'],
  ['/guides/knot%2Dtying',                'applied',  'encoded hyphen in the param'],
  ['/guides/a;x=1',                       'applied',  '`;` is part of the segment (404 page)'],
  ['/guides/a.png',                       'applied',  'an image extension, but /guides/:slug is a page'],
  ['/guide/knot-tying',                   'applied',  'redirected by the site policy'],
  ['/#/faq',                              'applied',  'a fragment ends the path: this is /'],
  ['/?/faq',                              'applied',  'a query ends the path: this is /'],
  ['http://evil.example/status',          'applied',  'absolute form: the router takes the path'],
  ['HTTPS://evil.example',                'applied',  'absolute form without a path: /'],
  ['http://evil.example?/faq',            'applied',  'absolute form, query right after the host: /'],
  // Near misses of the exclusions: whole segments, case-sensitive, like the router.
  ['/FAQ',                                'applied',  'case: no route, filtered 404'],
  ['/Faq/',                               'applied',  'case'],
  ['/API/x',                              'applied',  'case'],
  ['/faqs',                               'applied',  'longer segment'],
  ['/faq/x',                              'applied',  'below /faq'],
  ['/faq-admin',                          'applied',  'longer segment'],
  ['/faq;x=1',                            'applied',  '`;` is not a delimiter for the router'],
  ['/faq%3Bx=1',                          'applied',  'encoded `;` stays encoded in the path'],
  ['/faq%3F',                             'applied',  'encoded `?` stays encoded in the path'],
  ['/faq.html',                           'applied',  'another name'],
  ['/apix',                               'applied',  'longer segment'],
  ['/api-docs',                           'applied',  'longer segment'],
  ['/_nextx',                             'applied',  'longer segment'],
  ['/_nextx/static/a',                    'applied',  'longer first segment'],
  ['/images-private',                     'applied',  'longer segment'],
  ['/favicon.icox',                       'applied',  'another name'],
  ['/robots.txtx',                        'applied',  'another name'],
  ['/sitemapx',                           'applied',  'another name'],
  ['/sitemap-x.xml',                      'applied',  'not a numbered sitemap file'],
  ['/sitemap.xml.bak',                    'applied',  'another name'],
  ['/no-such-page',                       'applied',  'the 404 page is filtered too'],
  // Page data: the decision of the page it serves.
  [`/_next/data/${id}/index.json`,        'applied',  'data of /'],
  [`/_next/data/${id}/guides/knot-tying.json`, 'applied', 'data of a guide'],
  [`/_next/data/${id}/status.json?x=1`,   'applied',  'data of /status'],
  [`/_next/data/${id}/faqs.json`,         'applied',  'data of /faqs'],
  [`/_next/data/${id}/faq/x.json`,        'applied',  'data of /faq/x'],
  [`/_next/data/${id}/guides/a.png.json`, 'applied',  'data of a guide whose slug looks like an image'],
  [`/_next/data/${id}/guide/x.json`,      'applied',  'data of a redirected path'],
  [`/_next/data/${id}/status`,            'applied',  'no .json: still judged as /status'],
  [`/_next/data/${id}`,                   'applied',  'no page path: judged as /'],
  [`/_next/data/${id}/FAQ.json`,          'applied',  'data of /FAQ'],
  // Excluded, as config/request-filter.ts lists them.
  ['/api',                                'excluded', 'api'],
  ['/api/',                               'excluded', 'api, trailing slash'],
  ['/api/health',                         'excluded', 'an API route'],
  ['/api/health/',                        'excluded', 'an API route, trailing slash'],
  ['/api/x/y',                            'excluded', 'anything below api'],
  ['/_next',                              'excluded', '_next'],
  ['/_next/static/chunks/x.js',           'excluded', 'built assets'],
  ['/_next/image?url=/images/a.jpg&w=640','excluded', 'the image optimizer'],
  [`/_next/data/${id}/faq.json`,          'excluded', 'data of /faq'],
  [`/_next/data/${id}/%66aq.json`,        'excluded', 'data of /faq, encoded'],
  [`/_next/data/${id}/faq.json/`,         'excluded', 'data of /faq, trailing slash'],
  [`/_next/data/${id}/api/x.json`,        'excluded', 'data of /api/x: no page, and /api is excluded'],
  ['/images',                             'excluded', 'images'],
  ['/images/abstract.jpg',                'excluded', 'a public image'],
  ['/images/none.png',                    'excluded', 'below images'],
  ['/%69mages/abstract.jpg',              'excluded', 'encoded letter: decoded like the router'],
  ['/photo.png',                          'excluded', 'an image file'],
  ['/a/b/c.webp',                         'excluded', 'an image file anywhere'],
  ['/images-private/a.jpg',               'excluded', 'an image file (by its extension)'],
  ['/favicon.ico',                        'excluded', 'favicon.ico'],
  ['/favicon.ico/',                       'excluded', 'favicon.ico, trailing slash'],
  ['/robots.txt',                         'excluded', 'robots.txt'],
  ['/sitemap.xml',                        'excluded', 'sitemap.xml'],
  ['/sitemap-0.xml',                      'excluded', 'a sitemap file'],
  ['/sitemap-12.xml',                     'excluded', 'a sitemap file'],
  ['/faq',                                'excluded', 'the faq path'],
  ['/faq/',                               'excluded', 'the faq path with a trailing slash'],
  ['/faq?x=1',                            'excluded', 'the faq path with a query'],
  ['/faq/?x=1',                           'excluded', 'both'],
  ['/faq#x',                              'excluded', 'a fragment ends the path'],
  ['/fa%71',                              'excluded', 'encoded letter: the router serves /faq'],
  ['http://evil.example/faq',             'excluded', 'absolute form of /faq'],
  // Forms the router and a browser (or a later layer) read differently: refused.
  ['//guides/a',                          'refused',  'empty segment'],
  ['//faq',                               'refused',  'empty segment'],
  ['/faq//',                              'refused',  'two trailing slashes'],
  ['/api//health',                        'refused',  'empty segment'],
  ['/guides/./a',                         'refused',  'dot segment'],
  ['/guides/.',                           'refused',  'dot segment (the router would take `.` for a slug)'],
  ['/guides/..',                          'refused',  'dot segment'],
  ['/guides/%2e%2E',                      'refused',  'encoded dot segment'],
  ['/x/../guides/a',                      'refused',  'dot segment'],
  ['/x/%2e%2e/guides/a',                  'refused',  'encoded dot segment'],
  ['/%2e%2e/faq',                         'refused',  'encoded dot segment'],
  ['/./faq',                              'refused',  'dot segment'],
  ['/faq/.',                              'refused',  'dot segment after an excluded path'],
  ['/faq/..',                             'refused',  'dot segment after an excluded path'],
  ['/api/../guides/a',                    'refused',  'an excluded prefix climbed out of'],
  ['/images/../guides/a',                 'refused',  'an excluded prefix climbed out of'],
  ['/_next/../guides/a',                  'refused',  'an excluded prefix climbed out of'],
  ['/guides%2Fa',                         'refused',  'encoded slash'],
  ['/guides%2fa',                         'refused',  'encoded slash, lower case'],
  ['/faq%2F',                             'refused',  'encoded slash'],
  ['/api%2F..%2Fguides',                  'refused',  'encoded slash and dots'],
  ['/guides/a%5Cb',                       'refused',  'encoded backslash'],
  ['/guides/a\\b',                        'refused',  'backslash'],
  ['/\\faq',                              'refused',  'backslash'],
  ['/guides/a%00',                        'refused',  'encoded NUL'],
  ['/%0afaq',                             'refused',  'encoded line feed'],
  ['*',                                   'refused',  'asterisk form: the router would serve /'],
  ['*faq',                                'bad-url',  'read as `/` + `faq` by the public files\' wildcard: not a URL component'],
  ['ftp://evil.example/faq',              'bad-url',  'neither a path nor an http(s) URL: the wildcard refuses it'],
  [`/_next/data/${id}/x/../faq.json`,     'refused',  'dot segment in a data URL'],
  [`/_next/data/${id}//faq.json`,         'refused',  'empty segment in a data URL'],
  [`/_next/data/${id}/guides%2Fa.json`,   'refused',  'encoded slash in a data URL (a wildcard param decodes it)'],
  ['/_next//data/x/faq.json',             'refused',  'empty segment'],
  // Malformed escapes: the router answers 400 before any hook runs.
  ['/guides/%',                           'bad-url',  'lone %'],
  ['/%zz',                                'bad-url',  'not hex'],
  ['/faq%',                               'bad-url',  'lone % after an excluded path'],
  ['/guides/%C0%AF',                      'bad-url',  'overlong UTF-8 for /'],
  ['/%E0%A4%A',                           'bad-url',  'truncated escape'],
  [`/_next/data/${id}/fa%.json`,          'bad-url',  'lone % in a data URL'],
  // Over-long route parameters: the router's own 404, judged by the path all the same.
  [`/guides/${'a'.repeat(250)}`,          'applied',  'a parameter over maxParamLength'],
  [`/_next/data/${'d'.repeat(250)}/faq.json`, 'excluded', 'an over-long id in the data URL of an excluded page'],
]

interface RawResponse {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

/** GET `path` exactly as written (http.request sends the path unchanged). */
function rawGet(origin: string, path: string, headers: http.OutgoingHttpHeaders = {}): Promise<RawResponse> {
  const { hostname, port } = new URL(origin)
  return new Promise((resolve, reject) => {
    const request = http.request({ host: hostname, port, path, method: 'GET', headers }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (text: string) => (body += text))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }))
      response.on('error', reject)
    })
    request.on('error', reject)
    request.setTimeout(10_000, () => request.destroy(new Error(`GET ${path} timed out`)))
    request.end()
  })
}

function accessLineOf(logs: () => LogLine[], requestId: unknown): LogLine | undefined {
  return logs().find((line) => line.msg === 'request completed' && line.reqId === requestId)
}

/** `nonce-...` of a CSP header, if any. */
function nonceOf(csp: string | string[] | undefined): string | undefined {
  return /'nonce-([^']+)'/.exec(String(csp ?? ''))?.[1]
}

function assertDecision(t: Test, built: Built, rawPath: string, expected: Expected, response: RawResponse) {
  const line = accessLineOf(built.logs, response.headers['x-request-id'])
  t.ok(line, 'an access line')
  t.equal(response.headers['x-content-type-options'], 'nosniff', 'nosniff, whatever the decision')
  const csp = response.headers['content-security-policy']
  switch (expected) {
    case 'applied': {
      t.not(response.status, 400, 'not refused')
      t.equal(line?.filter, 'applied', 'access line: applied')
      const nonce = nonceOf(csp)
      t.ok(nonce, 'a CSP with a nonce')
      t.equal(response.headers['x-frame-options'], 'DENY')
      const bodyNonces = new Set([...response.body.matchAll(/nonce="([^"]*)"/g)].map((match) => match[1]))
      if (String(response.headers['content-type']).startsWith('text/html')) {
        t.same([...bodyNonces], [nonce], 'every nonce in the document is the header one')
      }
      break
    }
    case 'excluded':
      t.not(response.status, 400, 'not refused')
      t.equal(line?.filter, 'excluded', 'access line: excluded')
      t.equal(csp, undefined, 'no CSP')
      t.equal(response.headers['x-frame-options'], undefined, 'no document headers')
      t.notMatch(response.body, /nonce="/, 'no nonce in the body')
      break
    case 'refused':
      t.equal(response.status, 400, '400')
      t.equal(line?.filter, 'applied', 'access line: applied (the error page is filtered)')
      t.ok(nonceOf(csp), 'the error page has its CSP')
      t.ok(
        built.logs().some((entry) => entry.reqId === line?.reqId && entry.code === 'COURIER_ERR_FILTER_PATH_INVALID'),
        'COURIER_ERR_FILTER_PATH_INVALID',
      )
      break
    case 'bad-url':
      t.equal(response.status, 400, '400')
      t.equal(line?.route, null, 'no route ran')
      t.equal(line?.filter, 'applied', 'access line: applied (the error page is filtered)')
      t.ok(nonceOf(csp), 'the error page has its CSP')
      for (const [, bodyNonce] of response.body.matchAll(/nonce="([^"]*)"/g)) {
        t.equal(bodyNonce, nonceOf(csp), 'a nonce in the error page is the header one')
      }
      break
  }
  t.comment(`${rawPath} -> ${response.status}`)
}

t.test('the path table: at least 60 raw paths, each with its decision', async (t) => {
  t.ok(pathTable.length >= 60, `${pathTable.length} paths`)
  t.equal(new Set(pathTable.map(([path]) => path)).size, pathTable.length, 'no path twice')
  const built = await build(t)
  const origin = await listen(built.app)
  for (const [rawPath, expected, why] of pathTable) {
    await t.test(`${rawPath} is ${expected} (${why})`, async (t) => {
      assertDecision(t, built, rawPath, expected, await rawGet(origin, rawPath))
    })
  }
})

t.test('inject (which resolves dot segments itself) agrees on plain paths', async (t) => {
  const { app, logs } = await build(t)
  for (const [url, expected] of [['/guides/knot-tying', 'applied'], ['/faq/', 'excluded'], ['/api/health', 'excluded'], ['/FAQ', 'applied']] as const) {
    const response = await app.inject(url)
    t.equal(accessLineOf(logs, response.headers['x-request-id'])?.filter, expected, url)
    t.equal(Boolean(response.headers['content-security-policy']), expected === 'applied', `${url}: CSP`)
  }
})

t.test('every page response carries a fresh 128-bit nonce, the same in the CSP and on every script', async (t) => {
  const { app } = await build(t)
  const first = await app.inject('/')
  const second = await app.inject('/')
  const nonce = nonceOf(first.headers['content-security-policy'])!
  t.match(nonce, /^[A-Za-z0-9+/]{22}==$/, '16 bytes, base64')
  t.equal(Buffer.from(nonce, 'base64').length, 16)
  t.not(nonceOf(second.headers['content-security-policy']), nonce, 'a new nonce per request')
  const scripts = [...first.body.matchAll(/<script\b[^>]*>/g)].map((match) => match[0])
  t.ok(scripts.length >= 2, 'the document has scripts')
  for (const tag of scripts) t.match(tag, ` nonce="${nonce}"`, tag)
})

t.test('the policy headers, exactly', async (t) => {
  const { app } = await build(t)
  // A page rendered whole (a partly prerendered one, as /status, adds the hash of React's shell script).
  const page = await app.inject('/')
  const csp = String(page.headers['content-security-policy'])
  for (const directive of [
    /^script-src 'nonce-[^']+' 'strict-dynamic';/,
    /; object-src 'none'/,
    /; base-uri 'self'/,
    /; frame-ancestors 'none'/,
    /; default-src 'self'/,
  ]) {
    t.match(csp, directive)
  }
  t.notMatch(csp, /script-src[^;]*'unsafe-inline'/, 'no unsafe-inline for scripts')
  t.equal(page.headers['x-content-type-options'], 'nosniff')
  t.equal(page.headers['referrer-policy'], 'strict-origin-when-cross-origin')
  t.match(String(page.headers['permissions-policy']), /camera=\(\)/)
  t.equal(page.headers['x-frame-options'], 'DENY')
  t.equal(page.headers['cross-origin-opener-policy'], 'same-origin')
  t.equal(page.headers['strict-transport-security'], undefined, 'no HSTS unless HSTS=true')
  const api = await app.inject('/api/health')
  t.equal(api.headers['x-content-type-options'], 'nosniff', 'excluded paths keep nosniff')
  t.equal(api.headers['referrer-policy'], 'strict-origin-when-cross-origin')
  t.equal(api.headers['content-security-policy'], undefined)
  t.equal(api.headers['permissions-policy'], undefined)
})

t.test('HSTS=true adds Strict-Transport-Security to every response', async (t) => {
  const { app } = await build(t, { HSTS: 'true' })
  for (const url of ['/', '/faq', '/api/health']) {
    const response = await app.inject(url)
    t.equal(response.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains', url)
  }
})

t.test('redirects from config keep the query and encode the parameter; data URLs get the redirect as data', async (t) => {
  const { app, logs } = await build(t)
  const origin = await listen(app)
  const cases = [
    ['/guide/knot-tying', '/guides/knot-tying'],
    ['/guide/knot-tying/?ref=a&b=%20', '/guides/knot-tying?ref=a&b=%20'],
    ['/guide', '/guides'],
    ['/guide/$&', '/guides/$&'],
    ['/guide/%C3%A9t%C3%A9', '/guides/%C3%A9t%C3%A9'],
    ['/guide/a%3Bb', '/guides/a%3Bb'],
  ] as const
  for (const [from, to] of cases) {
    const response = await rawGet(origin, from)
    t.equal(response.status, 308, `${from}: permanent`)
    t.equal(response.headers.location, to, `${from} -> ${to}`)
    t.ok(nonceOf(response.headers['content-security-policy']), 'the redirect is a filtered response')
    t.equal(accessLineOf(logs, response.headers['x-request-id'])?.filter, 'applied')
  }
  // The client router fetches data: a 3xx would be followed by fetch and show the new page's data under the old URL.
  const dataCases = [
    [`/_next/data/${id}/guide/knot-tying.json`, '/guides/knot-tying'],
    [`/_next/data/${id}/guide.json?x=1`, '/guides?x=1'],
  ] as const
  for (const [from, to] of dataCases) {
    const response = await rawGet(origin, from)
    t.equal(response.status, 200, `${from}: answered as data`)
    t.equal(response.headers.location, undefined, `${from}: no Location`)
    t.match(response.headers['content-type'], /^application\/json/)
    t.equal(response.headers['cache-control'], 'no-store')
    t.equal(response.headers['x-deployment-id'], app.deploymentId, 'from this deployment, as page data is')
    t.same(JSON.parse(response.body), { redirect: { destination: to, permanent: true } }, `${from} -> ${to}`)
    t.equal(accessLineOf(logs, response.headers['x-request-id'])?.filter, 'applied')
  }
  const notRedirected = await rawGet(origin, '/guides/knot-tying')
  t.equal(notRedirected.status, 200, 'the target is not redirected again')
})

/** An auth gate as a site would write one: pages and their data need the session cookie. */
const authGate: PolicyStep = function requireSession(request: FastifyRequest) {
  if (request.headers.cookie?.includes('session=valid')) return { action: 'continue' }
  return { action: 'respond', statusCode: 401, headers: { 'www-authenticate': 'Cookie realm="courier"' } }
}

t.test('a site step (an auth gate) guards pages and their data alike, and not the excluded paths', async (t) => {
  const { app, logs } = await build(t, {}, { requestFilter: { steps: [authGate] } })
  const guarded = ['/', '/guides/knot-tying', '/status', '/no-such-page', `/_next/data/${id}/guides/knot-tying.json`, `/_next/data/${id}/index.json`]
  for (const url of guarded) {
    const denied = await app.inject(url)
    t.equal(denied.statusCode, 401, `${url}: 401 without the session`)
    t.equal(denied.headers['www-authenticate'], 'Cookie realm="courier"', `${url}: the step's header`)
    t.ok(nonceOf(denied.headers['content-security-policy']), `${url}: the error page is filtered`)
    if (url.startsWith('/_next/')) {
      t.match(denied.json(), { statusCode: 401, code: 'COURIER_ERR_FILTER_RESPONDED' }, `${url}: JSON for data`)
    } else {
      t.match(denied.body, /<title>401: An unexpected error has occurred<\/title>/, `${url}: the error page`)
      for (const words of [pageTable.home.head().title, guides.find((guide) => guide.slug === 'knot-tying')!.title]) {
        t.notMatch(denied.body, words, `${url}: nothing of the page`)
      }
    }
    t.equal(accessLineOf(logs, denied.headers['x-request-id'])?.statusCode, 401)
  }
  const allowed = await app.inject({ url: '/guides/knot-tying', headers: { cookie: 'session=valid' } })
  t.equal(allowed.statusCode, 200, 'with the session, the page')
  for (const url of ['/faq', '/faq/', '/api/health', '/favicon.ico', '/robots.txt', '/sitemap.xml', `/_next/data/${id}/faq.json`]) {
    const response = await app.inject(url)
    t.not(response.statusCode, 401, `${url}: excluded, not gated`)
  }
  t.equal((await app.inject('/faq')).statusCode, 200, '/faq is served without a session')
})

t.test('a step may answer with a body, redirect, or be async; redirects come before site steps', async (t) => {
  const steps: PolicyStep[] = [
    async function maintenance(request) {
      await new Promise((resolve) => setImmediate(resolve))
      if (request.url === '/status') return { action: 'respond', statusCode: 503, body: 'down for maintenance' }
      return { action: 'continue', headers: { 'x-site-step': 'ran' } }
    },
    function legacy(_request, target) {
      return target.pathname === '/guides' ? { action: 'redirect', location: '/', permanent: false } : { action: 'continue' }
    },
  ]
  const { app } = await build(t, {}, { requestFilter: { steps } })
  const down = await app.inject('/status')
  t.equal(down.statusCode, 503)
  t.equal(down.body, 'down for maintenance')
  const moved = await app.inject('/guides')
  t.equal(moved.statusCode, 307)
  t.equal(moved.headers.location, '/')
  t.equal(moved.headers['x-site-step'], 'ran', 'headers of earlier steps stay')
  const data = await app.inject(`/_next/data/${id}/guides.json`)
  t.same(data.json(), { redirect: { destination: '/', permanent: false } }, 'a data request gets the redirect as data')
  const config = await app.inject('/guide/x')
  t.equal(config.headers.location, '/guides/x', 'the config redirect ran first')
  t.equal(config.headers['x-site-step'], undefined, 'site steps did not run after the redirect')
})

t.test('plugin options are checked at register time', async (t) => {
  await t.rejects(build(t, {}, { requestFilter: { steps: ['nope' as unknown as PolicyStep] } }), {
    code: 'COURIER_ERR_OPTION_INVALID',
  })
})

/** Every form of the headers that tricked other frameworks into skipping their middleware. */
const internalHeaders: ReadonlyArray<Record<string, string>> = [
  { 'x-middleware-subrequest': 'middleware' },
  { 'x-middleware-subrequest': 'src/middleware' },
  { 'x-middleware-subrequest': 'pages/_middleware' },
  { 'x-middleware-subrequest': 'middleware:middleware:middleware:middleware:middleware' },
  { 'x-middleware-subrequest': 'src/middleware:src/middleware:src/middleware:src/middleware:src/middleware' },
  { 'X-Middleware-Subrequest': 'MIDDLEWARE' },
  { 'x-middleware-subrequest': '1' },
  { 'x-middleware-rewrite': '/faq' },
  { 'x-middleware-rewrite': 'http://evil.example/faq' },
  { 'x-middleware-next': '1' },
  { 'x-matched-path': '/faq' },
  { 'x-matched-path': '/api/health' },
  { 'x-invoke-path': '/faq' },
  { 'x-invoke-path': '/_next/static/x.js' },
  { 'x-now-route-matches': '1=faq' },
  { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
  { 'x-forwarded-for': '127.0.0.1', 'x-real-ip': '127.0.0.1' },
  { 'x-original-url': '/faq', 'x-rewrite-url': '/faq' },
  { 'x-forwarded-prefix': '/api', 'x-forwarded-uri': '/faq' },
]

t.test('internal-looking headers change nothing (TRUST_PROXY off)', async (t) => {
  const { app, logs } = await build(t, {}, { requestFilter: { steps: [authGate] } })
  const origin = await listen(app)
  const paths = ['/', '/guides/knot-tying', '/guide/knot-tying', '/faq', '/api/health', `/_next/data/${id}/status.json`]
  const summary = async (path: string, headers: Record<string, string>) => {
    const response = await rawGet(origin, path, headers)
    return {
      status: response.status,
      location: response.headers.location,
      csp: Boolean(nonceOf(response.headers['content-security-policy'])),
      hsts: response.headers['strict-transport-security'],
      filter: accessLineOf(logs, response.headers['x-request-id'])?.filter,
    }
  }
  for (const path of paths) {
    const baseline = await summary(path, {})
    for (const headers of internalHeaders) {
      t.same(await summary(path, headers), baseline, `${path} with ${JSON.stringify(headers)}`)
    }
  }
})

/** Every way to spell a page path that a router might accept: each must meet the policy (here: a deny-all gate). */
function spellings(path: string): string[] {
  const variants = new Set<string>([path, `${path}/`, `${path}?a=1`, `${path}#x`, `http://evil.example${path}`])
  for (let index = 1; index < path.length; index++) {
    const code = path.charCodeAt(index).toString(16)
    for (const hex of [code.toLowerCase(), code.toUpperCase()]) {
      variants.add(`${path.slice(0, index)}%${hex.padStart(2, '0')}${path.slice(index + 1)}`)
    }
  }
  const segments = path.split('/')
  variants.add(`/${segments.slice(1).map((segment) => [...segment].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('')).join('/')}`)
  return [...variants]
}

t.test('no spelling of a page path reaches the page (or its data) without the filter', async (t) => {
  const denyAll: PolicyStep = () => ({ action: 'respond', statusCode: 403 })
  const { app } = await build(t, {}, { requestFilter: { steps: [denyAll] } })
  const origin = await listen(app)
  const pagePaths = ['/', '/guides', '/guides/knot-tying', '/status', '/__test/slow']
  const candidates = [
    ...pagePaths.flatMap(spellings),
    ...pagePaths.flatMap((path) => spellings(`/_next/data/${id}${path === '/' ? '/index' : path}.json`)),
    ...pathTable.map(([path]) => path),
  ]
  // Allowed through: /faq (excluded by config/request-filter.ts), byte for byte its unfiltered document, and what serves
  // no page at all.
  const faqDocument = (await rawGet(origin, '/faq')).body
  let reached = 0
  for (const path of candidates) {
    const response = await rawGet(origin, path)
    const isFaq = response.body === faqDocument
    const isPage = response.status === 200 && /data-dpl-id/.test(response.body) && !isFaq
    if (isPage) {
      reached += 1
      t.fail(`${path} reached a page past the filter`)
    }
    // A config redirect (/guide/x) answers data requests with `{ redirect }`: the policy's answer, not page data.
    if (response.status === 200 && /"pageProps"/.test(response.body)) t.fail(`${path} served page data past the filter`)
  }
  t.equal(reached, 0, `${candidates.length} spellings, none reached a page`)
})
