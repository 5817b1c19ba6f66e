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
import { guides as contentGuides } from '../helpers/content.ts'
import { redirects as siteRedirects } from '../../site/request-filter.ts'
import type { PolicyStep } from '../../src/site-policy.ts'
import {
  pageInstances,
  publicImagePath,
  siteWithUnfilteredPage,
  testGuidePath,
  testRoutes,
  titleOf,
} from '../helpers/site-pages.ts'

/** A deployment id for data URLs; the filter judges the page path whatever the id. */
const id = 'dpl-test'

/**
 * The pages the paths reach, whatever pages the site has: the test build's (test/site/pages/), with a kept page on
 * the path the filter excludes by name (config/request-filter.ts), `excluded`.
 */
const { site, path: excluded } = await siteWithUnfilteredPage()
/** Where the test build's guide pages are (`/__test/guides/:slug`): a page with a parameter, of any slug. */
const guides = testGuidePath('').slice(0, -1)
/** A guide of the tests' content, so its page is a 200. */
const guidePath = testGuidePath(contentGuides[0]!.slug)
/** A public image of the site (client/public/images/), whatever it is. */
const image = publicImagePath()
/** The test build's partly prerendered page: dynamic. */
const dynamicPage = '/__test/partial'

/** `text` with the character at `index` percent-encoded: the same path to the router. */
const encodedAt = (text: string, index: number) =>
  `${text.slice(0, index)}%${text.charCodeAt(index).toString(16)}${text.slice(index + 1)}`
const encodedFirst = (path: string) => encodedAt(path, path.search(/[a-z]/i))
const encodedLast = (path: string) => encodedAt(path, path.length - 1)

/** A router pattern of config/request-filter.ts with its parameters given one value. */
const filled = (pattern: string, value: string) => pattern.replace(/:\w+/g, () => value)
/** The site's redirects (config/request-filter.ts), whatever they are: one with a parameter, and one without. */
const withParameter = siteRedirects.find((redirect) => redirect.from.includes(':'))
const withoutParameter = siteRedirects.find((redirect) => !redirect.from.includes(':'))

/** The app over the test build's pages and the kept page on the excluded path. */
const buildSite = (t: Test, env: Record<string, string> = {}, options: Parameters<typeof build>[2] = {}) =>
  build(t, { ...testRoutes, ...env }, { site, ...options })

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
  ['/',                                    'applied',  'home page'],
  [dynamicPage,                            'applied',  'a dynamic page'],
  [`${guides}/knot-tying`,                 'applied',  'a guide'],
  [`${guides}/knot-tying/`,                'applied',  'trailing slash: the router ignores one'],
  [`${dynamicPage}?x=1`,                   'applied',  'query string'],
  [`${encodedFirst(guides)}/knot-tying`,   'applied',  'encoded letter: decoded like the router'],
  [`${guides}/knot%2Dtying`,               'applied',  'encoded hyphen in the param'],
  [`${guides}/a;x=1`,                      'applied',  '`;` is part of the segment (404 page)'],
  [`${guides}/a.png`,                      'applied',  'an image extension, but the guide page takes any slug'],
  [filled(withParameter!.from, 'knot-tying'), 'applied', 'redirected by the site policy'],
  [`/#${excluded}`,                        'applied',  'a fragment ends the path: this is /'],
  [`/?${excluded}`,                        'applied',  'a query ends the path: this is /'],
  [`http://evil.example${dynamicPage}`,    'applied',  'absolute form: the router takes the path'],
  ['HTTPS://evil.example',                 'applied',  'absolute form without a path: /'],
  [`http://evil.example?${excluded}`,      'applied',  'absolute form, query right after the host: /'],
  // Near misses of the exclusions: whole segments, case-sensitive, like the router.
  [excluded.toUpperCase(),                 'applied',  'case: no route, filtered 404'],
  [`/${excluded.charAt(1).toUpperCase()}${excluded.slice(2)}/`, 'applied', 'case'],
  ['/API/x',                               'applied',  'case'],
  [`${excluded}s`,                         'applied',  'longer segment'],
  [`${excluded}/x`,                        'applied',  'below the excluded page'],
  [`${excluded}-admin`,                    'applied',  'longer segment'],
  [`${excluded};x=1`,                      'applied',  '`;` is not a delimiter for the router'],
  [`${excluded}%3Bx=1`,                    'applied',  'encoded `;` stays encoded in the path'],
  [`${excluded}%3F`,                       'applied',  'encoded `?` stays encoded in the path'],
  [`${excluded}.html`,                     'applied',  'another name'],
  ['/apix',                                'applied',  'longer segment'],
  ['/api-docs',                            'applied',  'longer segment'],
  ['/_nextx',                              'applied',  'longer segment'],
  ['/_nextx/static/a',                     'applied',  'longer first segment'],
  ['/images-private',                      'applied',  'longer segment'],
  ['/favicon.icox',                        'applied',  'another name'],
  ['/robots.txtx',                         'applied',  'another name'],
  ['/sitemapx',                            'applied',  'another name'],
  ['/sitemap-x.xml',                       'applied',  'not a numbered sitemap file'],
  ['/sitemap.xml.bak',                     'applied',  'another name'],
  ['/no-such-page',                        'applied',  'the 404 page is filtered too'],
  // Page data: the decision of the page it serves.
  [`/_next/data/${id}/index.json`,         'applied',  'data of /'],
  [`/_next/data/${id}${guides}/knot-tying.json`, 'applied', 'data of a guide page'],
  [`/_next/data/${id}${dynamicPage}.json?x=1`, 'applied',  'data of a dynamic page'],
  [`/_next/data/${id}${excluded}s.json`,   'applied',  'data of a longer name'],
  [`/_next/data/${id}${excluded}/x.json`,  'applied',  'data of a path below it'],
  [`/_next/data/${id}${guides}/a.png.json`, 'applied',  'data of a guide whose slug looks like an image'],
  [`/_next/data/${id}${filled(withParameter!.from, 'x')}.json`, 'applied', 'data of a redirected path'],
  [`/_next/data/${id}${dynamicPage}`,      'applied',  'no .json: still judged as the page'],
  [`/_next/data/${id}`,                    'applied',  'no page path: judged as /'],
  [`/_next/data/${id}${excluded.toUpperCase()}.json`, 'applied',  'data of its upper-case spelling'],
  // Excluded, as config/request-filter.ts lists them.
  ['/api',                                 'excluded', 'api'],
  ['/api/',                                'excluded', 'api, trailing slash'],
  ['/api/health',                          'excluded', 'an API route'],
  ['/api/health/',                         'excluded', 'an API route, trailing slash'],
  ['/api/x/y',                             'excluded', 'anything below api'],
  ['/_next',                               'excluded', '_next'],
  ['/_next/static/chunks/x.js',            'excluded', 'built assets'],
  ['/_next/image?url=/images/a.jpg&w=640', 'excluded', 'the image optimizer'],
  [`/_next/data/${id}${excluded}.json`,    'excluded', 'data of the excluded page'],
  [`/_next/data/${id}/${encodedFirst(excluded).slice(1)}.json`, 'excluded', 'data of the excluded page, encoded'],
  [`/_next/data/${id}${excluded}.json/`,   'excluded', 'data of the excluded page, trailing slash'],
  [`/_next/data/${id}/api/x.json`,         'excluded', 'data of /api/x: no page, and /api is excluded'],
  ['/images',                              'excluded', 'images'],
  [image,                                  'excluded', 'a public image'],
  ['/images/none.png',                     'excluded', 'below images'],
  [`/%69${image.slice(2)}`,                'excluded', 'encoded letter: decoded like the router'],
  ['/photo.png',                           'excluded', 'an image file'],
  ['/a/b/c.webp',                          'excluded', 'an image file anywhere'],
  ['/images-private/a.jpg',                'excluded', 'an image file (by its extension)'],
  ['/favicon.ico',                         'excluded', 'favicon.ico'],
  ['/favicon.ico/',                        'excluded', 'favicon.ico, trailing slash'],
  ['/robots.txt',                          'excluded', 'robots.txt'],
  ['/sitemap.xml',                         'excluded', 'sitemap.xml'],
  ['/sitemap-0.xml',                       'excluded', 'a sitemap file'],
  ['/sitemap-12.xml',                      'excluded', 'a sitemap file'],
  [`${excluded}`,                          'excluded', 'a page path the filter excludes by name'],
  [`${excluded}/`,                         'excluded', 'with a trailing slash'],
  [`${excluded}?x=1`,                      'excluded', 'with a query'],
  [`${excluded}/?x=1`,                     'excluded', 'both'],
  [`${excluded}#x`,                        'excluded', 'a fragment ends the path'],
  [encodedLast(excluded),                  'excluded', 'encoded letter: the router serves the excluded page'],
  [`http://evil.example${excluded}`,       'excluded', 'absolute form of the excluded page'],
  // Forms the router and a browser (or a later layer) read differently: refused.
  [`/${guides}/a`,                         'refused',  'empty segment'],
  [`/${excluded}`,                         'refused',  'empty segment'],
  [`${excluded}//`,                        'refused',  'two trailing slashes'],
  ['/api//health',                         'refused',  'empty segment'],
  [`${guides}/./a`,                        'refused',  'dot segment'],
  [`${guides}/.`,                          'refused',  'dot segment (the router would take `.` for a slug)'],
  [`${guides}/..`,                         'refused',  'dot segment'],
  [`${guides}/%2e%2E`,                     'refused',  'encoded dot segment'],
  [`/x/..${guides}/a`,                     'refused',  'dot segment'],
  [`/x/%2e%2e${guides}/a`,                 'refused',  'encoded dot segment'],
  [`/%2e%2e${excluded}`,                   'refused',  'encoded dot segment'],
  [`/.${excluded}`,                        'refused',  'dot segment'],
  [`${excluded}/.`,                        'refused',  'dot segment after an excluded path'],
  [`${excluded}/..`,                       'refused',  'dot segment after an excluded path'],
  [`/api/..${guides}/a`,                   'refused',  'an excluded prefix climbed out of'],
  [`/images/..${guides}/a`,                'refused',  'an excluded prefix climbed out of'],
  [`/_next/..${guides}/a`,                 'refused',  'an excluded prefix climbed out of'],
  [`${guides}%2Fa`,                        'refused',  'encoded slash'],
  [`${guides}%2fa`,                        'refused',  'encoded slash, lower case'],
  [`${excluded}%2F`,                       'refused',  'encoded slash'],
  [`/api%2F..%2F${guides.slice(1)}`,       'refused',  'encoded slash and dots'],
  [`${guides}/a%5Cb`,                      'refused',  'encoded backslash'],
  [`${guides}/a\\b`,                       'refused',  'backslash'],
  [`/\\${excluded.slice(1)}`,              'refused',  'backslash'],
  [`${guides}/a%00`,                       'refused',  'encoded NUL'],
  [`/%0a${excluded.slice(1)}`,             'refused',  'encoded line feed'],
  ['*',                                    'refused',  'asterisk form: the router would serve /'],
  [`*${excluded.slice(1)}`,                'bad-url',  'read as `/` + `faq` by the public files\' wildcard: not a URL component'],
  [`ftp://evil.example${excluded}`,        'bad-url',  'neither a path nor an http(s) URL: the wildcard refuses it'],
  [`/_next/data/${id}/x/..${excluded}.json`, 'refused',  'dot segment in a data URL'],
  [`/_next/data/${id}/${excluded}.json`,   'refused',  'empty segment in a data URL'],
  [`/_next/data/${id}${guides}%2Fa.json`,  'refused',  'encoded slash in a data URL (a wildcard param decodes it)'],
  [`/_next//data/x${excluded}.json`,       'refused',  'empty segment'],
  // Malformed escapes: the router answers 400 before any hook runs.
  [`${guides}/%`,                          'bad-url',  'lone %'],
  ['/%zz',                                 'bad-url',  'not hex'],
  [`${excluded}%`,                         'bad-url',  'lone % after an excluded path'],
  [`${guides}/%C0%AF`,                     'bad-url',  'overlong UTF-8 for /'],
  ['/%E0%A4%A',                            'bad-url',  'truncated escape'],
  [`/_next/data/${id}${excluded.slice(0, -1)}%.json`, 'bad-url',  'lone % in a data URL'],
  // Over-long route parameters: the router's own 404, judged by the path all the same.
  [`${guides}/${'a'.repeat(250)}`,         'applied',  'a parameter over maxParamLength'],
  [`/_next/data/${'d'.repeat(250)}${excluded}.json`, 'excluded', 'an over-long id in the data URL of an excluded page'],
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
  const built = await buildSite(t)
  const origin = await listen(built.app)
  for (const [rawPath, expected, why] of pathTable) {
    await t.test(`${rawPath} is ${expected} (${why})`, async (t) => {
      assertDecision(t, built, rawPath, expected, await rawGet(origin, rawPath))
    })
  }
})

t.test('inject (which resolves dot segments itself) agrees on plain paths', async (t) => {
  const { app, logs } = await buildSite(t)
  for (const [url, expected] of [
    [guidePath, 'applied'],
    [`${excluded}/`, 'excluded'],
    ['/api/health', 'excluded'],
    [excluded.toUpperCase(), 'applied'],
  ] as const) {
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
  // A page rendered whole (a partly prerendered one adds the hash of React's shell script).
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
  const { app } = await buildSite(t, { HSTS: 'true' })
  for (const url of ['/', excluded, '/api/health']) {
    const response = await app.inject(url)
    t.equal(response.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains', url)
  }
})

t.test(
  'redirects from config keep the query and encode the parameter; data URLs get the redirect as data',
  async (t) => {
    const { app, logs } = await buildSite(t)
    const origin = await listen(app)
    t.ok(
      withParameter && withoutParameter,
      'config/request-filter.ts redirects a path with a parameter and one without',
    )
    const [from1, to1, from0, to0] = [
      withParameter!.from,
      withParameter!.to,
      withoutParameter!.from,
      withoutParameter!.to,
    ]
    const status = (redirect: { permanent: boolean }) => (redirect.permanent ? 308 : 307)
    const cases = [
      [filled(from1, 'knot-tying'), filled(to1, 'knot-tying'), status(withParameter!)],
      [
        `${filled(from1, 'knot-tying')}/?ref=a&b=%20`,
        `${filled(to1, 'knot-tying')}?ref=a&b=%20`,
        status(withParameter!),
      ],
      [from0, to0, status(withoutParameter!)],
      [filled(from1, '$&'), filled(to1, '$&'), status(withParameter!)],
      [filled(from1, '%C3%A9t%C3%A9'), filled(to1, '%C3%A9t%C3%A9'), status(withParameter!)],
      [filled(from1, 'a%3Bb'), filled(to1, 'a%3Bb'), status(withParameter!)],
    ] as const
    for (const [from, to, code] of cases) {
      const response = await rawGet(origin, from)
      t.equal(response.status, code, `${from}: permanent (308) or not (307), as configured`)
      t.equal(response.headers.location, to, `${from} -> ${to}`)
      t.ok(nonceOf(response.headers['content-security-policy']), 'the redirect is a filtered response')
      t.equal(accessLineOf(logs, response.headers['x-request-id'])?.filter, 'applied')
    }
    // The client router fetches data: a 3xx would be followed by fetch and show the new page's data under the old URL.
    const dataCases = [
      [`/_next/data/${id}${filled(from1, 'knot-tying')}.json`, filled(to1, 'knot-tying'), withParameter!.permanent],
      [`/_next/data/${id}${from0}.json?x=1`, `${to0}?x=1`, withoutParameter!.permanent],
    ] as const
    for (const [from, to, permanent] of dataCases) {
      const response = await rawGet(origin, from)
      t.equal(response.status, 200, `${from}: answered as data`)
      t.equal(response.headers.location, undefined, `${from}: no Location`)
      t.match(response.headers['content-type'], /^application\/json/)
      t.equal(response.headers['cache-control'], 'no-store')
      t.equal(response.headers['x-deployment-id'], app.deploymentId, 'from this deployment, as page data is')
      t.same(JSON.parse(response.body), { redirect: { destination: to, permanent } }, `${from} -> ${to}`)
      t.equal(accessLineOf(logs, response.headers['x-request-id'])?.filter, 'applied')
    }
    const notRedirected = await rawGet(origin, filled(to1, 'knot-tying'))
    t.notOk(notRedirected.headers.location, 'the target is not redirected again')
    t.notOk(
      [301, 302, 303, 307, 308].includes(notRedirected.status),
      `the target answers itself (${notRedirected.status})`,
    )
  },
)

/** An auth gate as a site would write one: pages and their data need the session cookie. */
const authGate: PolicyStep = function requireSession(request: FastifyRequest) {
  if (request.headers.cookie?.includes('session=valid')) return { action: 'continue' }
  return { action: 'respond', statusCode: 401, headers: { 'www-authenticate': 'Cookie realm="courier"' } }
}

t.test('a site step (an auth gate) guards pages and their data alike, and not the excluded paths', async (t) => {
  const { app, logs } = await buildSite(t, {}, { requestFilter: { steps: [authGate] } })
  const guarded = [
    '/',
    guidePath,
    dynamicPage,
    '/no-such-page',
    `/_next/data/${id}${guidePath}.json`,
    `/_next/data/${id}/index.json`,
  ]
  // Words of the pages guarded: the home page's title (its head, for its loader's data) and the guide's.
  const homeTitle = await titleOf((await pageInstances({ firstOnly: true })).find(({ url }) => url === '/')!)
  for (const url of guarded) {
    const denied = await app.inject(url)
    t.equal(denied.statusCode, 401, `${url}: 401 without the session`)
    t.equal(denied.headers['www-authenticate'], 'Cookie realm="courier"', `${url}: the step's header`)
    t.ok(nonceOf(denied.headers['content-security-policy']), `${url}: the error page is filtered`)
    if (url.startsWith('/_next/')) {
      t.match(denied.json(), { statusCode: 401, code: 'COURIER_ERR_FILTER_RESPONDED' }, `${url}: JSON for data`)
    } else {
      t.match(denied.body, /<title>401: An unexpected error has occurred<\/title>/, `${url}: the error page`)
      for (const words of [homeTitle, contentGuides[0]!.title]) {
        t.notMatch(denied.body, words, `${url}: nothing of the page`)
      }
    }
    t.equal(accessLineOf(logs, denied.headers['x-request-id'])?.statusCode, 401)
  }
  const allowed = await app.inject({ url: guidePath, headers: { cookie: 'session=valid' } })
  t.equal(allowed.statusCode, 200, 'with the session, the page')
  for (const url of [
    excluded,
    `${excluded}/`,
    '/api/health',
    '/favicon.ico',
    '/robots.txt',
    '/sitemap.xml',
    `/_next/data/${id}${excluded}.json`,
  ]) {
    const response = await app.inject(url)
    t.not(response.statusCode, 401, `${url}: excluded, not gated`)
  }
  t.equal((await app.inject(excluded)).statusCode, 200, `${excluded} is served without a session`)
})

t.test('a step may answer with a body, redirect, or be async; redirects come before site steps', async (t) => {
  const steps: PolicyStep[] = [
    async function maintenance(request) {
      await new Promise((resolve) => setImmediate(resolve))
      if (request.url === dynamicPage) return { action: 'respond', statusCode: 503, body: 'down for maintenance' }
      return { action: 'continue', headers: { 'x-site-step': 'ran' } }
    },
    function legacy(_request, target) {
      return target.pathname === guidePath
        ? { action: 'redirect', location: '/', permanent: false }
        : { action: 'continue' }
    },
  ]
  const { app } = await buildSite(t, {}, { requestFilter: { steps } })
  const down = await app.inject(dynamicPage)
  t.equal(down.statusCode, 503)
  t.equal(down.body, 'down for maintenance')
  const moved = await app.inject(guidePath)
  t.equal(moved.statusCode, 307)
  t.equal(moved.headers.location, '/')
  t.equal(moved.headers['x-site-step'], 'ran', 'headers of earlier steps stay')
  const data = await app.inject(`/_next/data/${id}${guidePath}.json`)
  t.same(data.json(), { redirect: { destination: '/', permanent: false } }, 'a data request gets the redirect as data')
  const config = await app.inject(filled(withParameter!.from, 'x'))
  t.equal(config.headers.location, filled(withParameter!.to, 'x'), 'the config redirect ran first')
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
  { 'x-middleware-rewrite': excluded },
  { 'x-middleware-rewrite': `http://evil.example${excluded}` },
  { 'x-middleware-next': '1' },
  { 'x-matched-path': excluded },
  { 'x-matched-path': '/api/health' },
  { 'x-invoke-path': excluded },
  { 'x-invoke-path': '/_next/static/x.js' },
  { 'x-now-route-matches': `1=${excluded.slice(1)}` },
  { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
  { 'x-forwarded-for': '127.0.0.1', 'x-real-ip': '127.0.0.1' },
  { 'x-original-url': excluded, 'x-rewrite-url': excluded },
  { 'x-forwarded-prefix': '/api', 'x-forwarded-uri': excluded },
]

t.test('internal-looking headers change nothing (TRUST_PROXY off)', async (t) => {
  const { app, logs } = await buildSite(t, {}, { requestFilter: { steps: [authGate] } })
  const origin = await listen(app)
  const paths = [
    '/',
    guidePath,
    filled(withParameter!.from, 'knot-tying'),
    excluded,
    '/api/health',
    `/_next/data/${id}${dynamicPage}.json`,
  ]
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
  variants.add(
    `/${segments
      .slice(1)
      .map((segment) => [...segment].map((c) => `%${c.charCodeAt(0).toString(16)}`).join(''))
      .join('/')}`,
  )
  return [...variants]
}

t.test('no spelling of a page path reaches the page (or its data) without the filter', async (t) => {
  const denyAll: PolicyStep = () => ({ action: 'respond', statusCode: 403 })
  const { app } = await buildSite(t, {}, { requestFilter: { steps: [denyAll] } })
  const origin = await listen(app)
  const pagePaths = ['/', guidePath, dynamicPage, '/__test/slow', '/__test/links']
  const candidates = [
    ...pagePaths.flatMap(spellings),
    ...pagePaths.flatMap((path) => spellings(`/_next/data/${id}${path === '/' ? '/index' : path}.json`)),
    ...pathTable.map(([path]) => path),
  ]
  // Allowed through: the excluded page (config/request-filter.ts), byte for byte its unfiltered document, and what
  // serves no page at all.
  const excludedDocument = (await rawGet(origin, excluded)).body
  let reached = 0
  for (const path of candidates) {
    const response = await rawGet(origin, path)
    const isExcludedPage = response.body === excludedDocument
    const isPage = response.status === 200 && /data-dpl-id/.test(response.body) && !isExcludedPage
    if (isPage) {
      reached += 1
      t.fail(`${path} reached a page past the filter`)
    }
    // A config redirect answers data requests with `{ redirect }`: the policy's answer, not page data.
    if (response.status === 200 && /"pageProps"/.test(response.body)) t.fail(`${path} served page data past the filter`)
  }
  t.equal(reached, 0, `${candidates.length} spellings, none reached a page`)
})
