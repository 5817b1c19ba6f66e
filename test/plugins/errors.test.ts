import http from 'node:http'
import t, { type Test } from 'tap'
import net from 'node:net'
import { build, buildUnready } from '../helpers/app.ts'
import {
  siteWithUnfilteredPage,
  testGuidePath,
  testGuideRoute,
  testGuidesPath,
  testRoutes,
} from '../helpers/site-pages.ts'
import { getChunks, listen } from '../helpers/http.ts'
import { rawRequest } from '../helpers/raw.ts'
import { siteName } from '../../site/site.ts'

t.test('an unknown path is the 404 page, in the layout, uncached', async (t) => {
  const { app } = await build(t)
  const response = await app.inject('/no/such/page')
  t.equal(response.statusCode, 404)
  t.match(response.headers['content-type'], /^text\/html/)
  t.equal(response.headers['cache-control'], 'no-store')
  t.match(response.body, '<title>404: This page could not be found</title>')
  t.match(
    response.body,
    `<meta name="description" content="${siteName} answered 404: This page could not be found." />`,
    'a description that says it in a sentence',
  )
  t.match(response.body, '<span class="error-status">404</span>')
  t.match(response.body, 'class="site-header"', 'inside the site layout')
})

t.test('under /api and /_next a miss is JSON', async (t) => {
  const { app } = await build(t)
  for (const url of ['/api/nothing', '/_next/nothing', '/_next/static/chunks/missing.js']) {
    const response = await app.inject(url)
    t.equal(response.statusCode, 404, url)
    t.match(response.headers['content-type'], /^application\/json/, url)
    t.equal(response.headers['cache-control'], 'no-store', url)
    t.match(response.json(), { statusCode: 404, error: 'This page could not be found' }, url)
  }
})

t.test(
  'malformed percent-encoding is a 400 page in the site layout, though the router refuses it before any route',
  async (t) => {
    const { app } = await build(t, testRoutes)
    for (const url of ['/%', testGuidePath('%E0%A4%A'), '/%zz']) {
      const response = await app.inject(url)
      t.equal(response.statusCode, 400, url)
      t.equal(response.headers['cache-control'], 'no-store', url)
      t.match(response.body, '<title>400: Bad Request</title>', url)
      t.match(response.body, /<header class="site-header">/, `${url}: the site layout`)
      t.match(response.body, `data-dpl-id="${app.deploymentId}"`, `${url}: the app's document`)
    }
  },
)

t.test('an over-long route parameter is not found, on the site 404 page', async (t) => {
  const { app } = await build(t, testRoutes)
  const response = await app.inject(testGuidePath('a'.repeat(500)))
  t.equal(response.statusCode, 404)
  t.match(response.body, '<title>404: This page could not be found</title>')
  t.match(response.body, `data-dpl-id="${app.deploymentId}"`)
})

t.test('an oversized header gets 431 and the server keeps serving', async (t) => {
  const { app } = await build(t)
  const base = new URL(await listen(app))
  const reply = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(base.port), base.hostname, () => {
      socket.write(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`)
    })
    let text = ''
    socket.on('data', (data) => (text += data.toString()))
    socket.on('close', () => resolve(text))
    socket.on('error', (error) =>
      (error as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve(text) : reject(error),
    )
  })
  t.match(reply, /^HTTP\/1\.1 431 /)
  const after = await fetch(`${base.origin}/api/health`)
  t.equal(after.status, 200)
})

/** The whole app with a few extra routes that fail on demand, registered before it is ready. */
async function buildWithFailingRoutes(t: Test, env: Record<string, string> = {}) {
  const { app, logs } = await buildUnready(t, env)
  for (const prefix of ['/api/failing', '/failing']) {
    app.get(`${prefix}/bug`, async function throwPlainError() {
      throw new Error('secret detail of a plugin bug')
    })
    app.get(`${prefix}/:status`, async function throwStatus(request) {
      const status = Number((request.params as { status: string }).status)
      throw Object.assign(new Error(`failing with ${status}`), { statusCode: status })
    })
  }
  app.get('/api/echo', {
    schema: { querystring: { type: 'object', properties: { n: { type: 'integer' } } } },
    handler: async (request) => request.query,
  })
  await app.ready()
  return { app, logs }
}

const table = [
  [400, 'Bad Request'],
  [404, 'This page could not be found'],
  [405, 'Method Not Allowed'],
  [500, 'Internal Server Error'],
] as const
const fallback = [409, 413, 429, 503] as const

t.test('every status of the table and the fallback title, as an HTML page in the layout', async (t) => {
  const { app } = await buildWithFailingRoutes(t)
  for (const [status, title] of [
    ...table,
    ...fallback.map((status) => [status, 'An unexpected error has occurred'] as const),
  ]) {
    const response = await app.inject(`/failing/${status}`)
    t.equal(response.statusCode, status, `${status}`)
    t.match(response.headers['content-type'], /^text\/html/)
    t.equal(response.headers['cache-control'], 'no-store', `${status} is never stored`)
    t.match(response.body, `<title>${status}: ${title}</title>`, `${status} title`)
    t.match(response.body, `<span class="error-status">${status}</span><span class="error-title">${title}</span>`)
    t.match(response.body, 'class="site-header"', 'inside the site layout')
  }
})

t.test('every status of the table and the fallback title, as JSON under /api', async (t) => {
  const { app } = await buildWithFailingRoutes(t)
  for (const [status, title] of [
    ...table,
    ...fallback.map((status) => [status, 'An unexpected error has occurred'] as const),
  ]) {
    const response = await app.inject(`/api/failing/${status}`)
    t.equal(response.statusCode, status, `${status}`)
    t.match(response.headers['content-type'], /^application\/json/)
    t.equal(response.headers['cache-control'], 'no-store')
    const body = response.json()
    t.match(body, { statusCode: status, error: title }, `${status}`)
    t.type(body.code, 'string')
    t.type(body.message, 'string')
    if (status >= 500) {
      t.equal(body.message, title, '5xx: the title, never the message')
      t.match(body.digest, /^[0-9a-f]{10}$/)
    } else {
      t.notOk('digest' in body, 'no digest below 500')
    }
  }
})

t.test('a plugin bug: 500 with a digest, equal in the body and in the error line; no message or stack', async (t) => {
  const { app, logs } = await buildWithFailingRoutes(t)
  const json = await app.inject('/api/failing/bug')
  t.equal(json.statusCode, 500)
  const body = json.json()
  t.same(Object.keys(body).sort(), ['code', 'digest', 'error', 'message', 'statusCode'])
  t.notMatch(json.body, 'secret detail')
  t.notMatch(json.body, /\bat \S+:\d+/, 'no stack frame')
  const line = logs().find((entry) => entry.msg === 'request failed' && entry.reqId === json.headers['x-request-id'])
  t.ok(line, 'an error line with the request id')
  t.equal(line?.level, 50)
  t.equal(line?.digest, body.digest, 'same digest in the body and the log line')
  t.match(line?.err, { message: 'secret detail of a plugin bug' }, 'the log has the message')

  const html = await app.inject('/failing/bug')
  t.equal(html.statusCode, 500)
  t.notMatch(html.body, 'secret detail')
  const digest = /Digest: ([0-9a-f]{10})/.exec(html.body)?.[1]
  t.ok(digest, 'the digest is on the screen')
  t.match(html.body, 'Application error: a server-side exception has occurred while loading localhost:80')
  const htmlLine = logs().find(
    (entry) => entry.msg === 'request failed' && entry.reqId === html.headers['x-request-id'],
  )
  t.equal(htmlLine?.digest, digest)
  t.not(digest, body.digest, 'one digest per occurrence')
})

t.test('400 for a querystring that fails its schema', async (t) => {
  const { app } = await buildWithFailingRoutes(t)
  const ok = await app.inject('/api/echo?n=3')
  t.equal(ok.statusCode, 200)
  const response = await app.inject('/api/echo?n=three')
  t.equal(response.statusCode, 400)
  t.match(response.json(), { statusCode: 400, code: 'FST_ERR_VALIDATION', error: 'Bad Request' })
  t.equal(response.headers['cache-control'], 'no-store')
  const json = await app.inject('/api/%')
  t.equal(json.statusCode, 400)
  t.match(json.json(), { statusCode: 400, error: 'Bad Request' }, 'malformed escapes under /api are JSON')
})

t.test('405 with Allow on a page path, whatever the method, body or content type', async (t) => {
  // Pages of every kind: the home page, a kept page on a path the filter leaves alone, a parametrised one, dynamic ones.
  const { site, path: unfilteredPath } = await siteWithUnfilteredPage()
  const { app } = await build(t, testRoutes, { site })
  const pages = [
    ['POST', '/'],
    ['PUT', unfilteredPath],
    ['DELETE', testGuidePath('anything')],
    ['PATCH', '/__test/slow'],
    ['OPTIONS', '/__test/partial'],
  ] as const
  for (const [method, url] of pages) {
    const response = await app.inject({ method, url })
    t.equal(response.statusCode, 405, `${method} ${url}`)
    t.equal(response.headers.allow, 'GET, HEAD')
    t.equal(response.headers['cache-control'], 'no-store')
    t.match(response.body, '<title>405: Method Not Allowed</title>')
  }
  const big = await app.inject({
    method: 'POST',
    url: '/',
    headers: { 'content-type': 'application/x-unknown' },
    payload: 'x'.repeat(200 * 1024),
  })
  t.equal(big.statusCode, 405, 'answered before the body is parsed: not 413, not 415')
  const head = await app.inject({ method: 'HEAD', url: '/' })
  t.equal(head.statusCode, 200, 'HEAD stays allowed')
  const missing = await app.inject({ method: 'POST', url: '/no/such/page' })
  t.equal(missing.statusCode, 404, 'a path that is no page stays 404')
  const api = await app.inject('/api/client-errors')
  t.equal(api.statusCode, 405, 'the API does the same, in JSON')
  t.equal(api.headers.allow, 'POST')
  t.match(api.json(), { statusCode: 405, code: 'COURIER_ERR_METHOD_NOT_ALLOWED', error: 'Method Not Allowed' })
})

t.test(
  'a 405 names the route it was refused on, in its message and access line, however it reaches no route',
  async (t) => {
    const { app, logs } = await build(t, testRoutes)
    const guide = await app.inject({
      method: 'DELETE',
      url: testGuidePath('anything'),
      headers: { accept: 'application/json' },
    })
    t.equal(guide.statusCode, 405)
    const line = logs().find((entry) => entry.msg === 'request completed' && entry.method === 'DELETE')
    t.equal(line?.statusCode, 405)
    t.equal(line?.route, testGuideRoute, "the access line has the page's route template")
    const rejected = logs().find((entry) => entry.msg === 'request rejected' && entry.statusCode === 405)
    t.equal(rejected?.code, 'COURIER_ERR_METHOD_NOT_ALLOWED')
    t.equal(rejected?.reason, `DELETE is not allowed on ${testGuideRoute}`)
    // A trailing slash: the public files' wildcard route takes the GET (its index leaves a folder-like path to
    // @fastify/static), which names no file and passes it to the not-found handler: still a 405, not a 404.
    for (const url of ['/api/client-errors/', '/api/client-errors']) {
      const api = await app.inject(url)
      t.equal(api.statusCode, 405, `GET ${url}`)
      t.equal(api.headers.allow, 'POST', `GET ${url}: Allow`)
      t.match(api.json(), {
        code: 'COURIER_ERR_METHOD_NOT_ALLOWED',
        message: 'GET is not allowed on /api/client-errors',
      })
    }
    const nowhere = logs().filter((entry) => entry.msg === 'request completed' && entry.url === '/api/client-errors/')
    t.same(
      nowhere.map((entry) => [entry.statusCode, entry.route]),
      [[405, '/api/client-errors']],
    )
    t.equal((await app.inject('/api/no-such-route/')).statusCode, 404, 'a path of no route stays 404, slash or not')
  },
)

t.test(
  'methods Fastify does not route by default (WebDAV, SEARCH, PURGE...) get 405 with Allow too, over a socket',
  async (t) => {
    const { site, path: unfilteredPath } = await siteWithUnfilteredPage()
    const { app } = await build(t, testRoutes, { site })
    const base = await listen(app)
    const dataPath = `/_next/data/${app.deploymentId}${unfilteredPath}.json`
    const methods = [
      'PROPFIND',
      'PROPPATCH',
      'MKCOL',
      'COPY',
      'MOVE',
      'LOCK',
      'UNLOCK',
      'SEARCH',
      'PURGE',
      'REPORT',
      'LINK',
      'UNLINK',
    ]
    const request = (method: string, url: string) =>
      new Promise<{ status: number; allow: string | undefined; contentType: string | undefined }>((resolve, reject) => {
        const outgoing = http.request(`${base}${url}`, { method, agent: false }, (response) => {
          response.resume()
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              allow: response.headers.allow,
              contentType: response.headers['content-type'],
            }),
          )
        })
        outgoing.on('error', reject)
        outgoing.end()
      })
    for (const method of methods) {
      for (const [url, allow] of [
        ['/', 'GET, HEAD'],
        [unfilteredPath, 'GET, HEAD'],
        [testGuidePath('anything'), 'GET, HEAD'],
        [dataPath, 'GET, HEAD'],
        ['/api/client-errors', 'POST'],
      ] as const) {
        const answer = await request(method, url)
        t.equal(answer.status, 405, `${method} ${url}`)
        t.equal(answer.allow, allow, `${method} ${url}: Allow`)
      }
      t.equal((await request(method, '/no/such/page')).status, 404, `${method} on a path that is no page stays 404`)
    }
  },
)

/** Every byte the server sent for `request`, once it has closed the connection. */
const rawExchange = async (base: URL, request: string) => (await rawRequest(base.origin, request)).raw

t.test('431 follows the table: the fallback title, HTML for pages, JSON for the API, never stored', async (t) => {
  const { app, logs } = await build(t, testRoutes)
  const base = new URL(await listen(app))
  const big = `X-Big: ${'a'.repeat(64 * 1024)}\r\n`
  const page = await rawExchange(base, `GET ${testGuidesPath} HTTP/1.1\r\nHost: x\r\n${big}\r\n`)
  t.match(page, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/)
  t.match(page, /\r\nCache-Control: no-store\r\n/i)
  t.match(page, /\r\nContent-Type: text\/html; charset=utf-8\r\n/i)
  t.match(page, '<title>431: An unexpected error has occurred</title>')
  const api = await rawExchange(base, `GET /api/health HTTP/1.1\r\nHost: x\r\n${big}\r\n`)
  t.match(api, /^HTTP\/1\.1 431 /)
  const json = JSON.parse(api.slice(api.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>
  t.same(json, {
    statusCode: 431,
    code: 'COURIER_ERR_HEADER_TOO_LARGE',
    error: 'An unexpected error has occurred',
    message: 'An unexpected error has occurred',
  })
  t.ok(
    logs().some((line) => line.msg === 'connection rejected' && line.statusCode === 431),
    'logged',
  )
  const garbage = await rawExchange(base, 'NOT HTTP AT ALL\r\n\r\n')
  t.match(garbage, /^HTTP\/1\.1 400 Bad Request\r\n/)
  t.match(garbage, '<title>400: Bad Request</title>')
})

t.test('a loader that throws: the 500 page with the digest of the one error line', async (t) => {
  const { app, logs } = await build(t, { COURIER_TEST_ROUTES: 'true' })
  const response = await app.inject('/__test/server-error')
  t.equal(response.statusCode, 500)
  t.equal(response.headers['cache-control'], 'no-store')
  t.match(response.body, '<title>500: Internal Server Error</title>')
  t.notMatch(response.body, 'failed on purpose', 'the message stays on the server')
  const digest = /Digest: ([0-9a-f]{10})/.exec(response.body)?.[1]
  t.ok(digest)
  t.match(response.body, `"digest":"${digest}"`, 'the hydration state carries the same digest')
  const errorLines = logs().filter((line) => line.err && line.reqId === response.headers['x-request-id'])
  t.equal(errorLines.length, 1, 'logged once')
  t.match(errorLines[0], { level: 50, msg: 'request failed', digest, err: { message: /failed on purpose/ } })
})

t.test('a component that throws before the shell: 500 page with digest, logged once', async (t) => {
  const { app, logs } = await build(t, { COURIER_TEST_ROUTES: 'true' })
  const response = await app.inject('/__test/shell-error')
  t.equal(response.statusCode, 500)
  t.equal(response.headers['cache-control'], 'no-store')
  t.match(response.body, '<title>500: Internal Server Error</title>')
  const digest = /Digest: ([0-9a-f]{10})/.exec(response.body)?.[1]
  t.ok(digest)
  t.notMatch(response.body, 'failed before the shell')
  const errorLines = logs().filter((line) => line.err && line.reqId === response.headers['x-request-id'])
  t.equal(errorLines.length, 1, 'logged once')
  t.match(errorLines[0], { level: 50, msg: 'render failed', digest })
})

t.test('an error after the shell was flushed: the status stays, the document ends with the error screen', async (t) => {
  const { app, logs } = await build(t, { COURIER_TEST_ROUTES: 'true' })
  const base = await listen(app)
  const { status, headers, chunks } = await getChunks(`${base}/__test/late-error?delay=200`)
  t.equal(status, 200, 'the status already sent stays')
  const shellAt = chunks.findIndex((chunk) => chunk.text.includes('late-fallback'))
  const screenChunkAt = chunks.findIndex((chunk) => chunk.text.includes('Application error'))
  t.ok(shellAt >= 0, 'the shell with the fallback was sent')
  t.ok(screenChunkAt > shellAt, `the error screen came in a later chunk (${shellAt} then ${screenChunkAt})`)
  const whole = chunks.map((chunk) => chunk.text).join('')
  const digest = /<p class="application-error-digest">Digest: ([0-9a-f]{10})<\/p><\/section>/.exec(whole)?.[1]
  t.ok(digest, 'the error screen with its digest')
  t.match(
    whole,
    /<\/div><section id="__COURIER_LATE_ERROR__" class="error-screen application-error" role="alert" data-digest="[0-9a-f]{10}"><h1 class="application-error-message">Application error: a server-side exception has occurred while loading 127\.0\.0\.1:\d+ \(see the browser console for more information\)\.<\/h1>/,
    'right after #root, outside what React hydrates',
  )
  // The element, not the stylesheet's rule for it in the head.
  const screenAt = whole.indexOf('<section id="__COURIER_LATE_ERROR__"')
  t.ok(screenAt > whole.lastIndexOf('$RX('), 'after the last of React output')
  t.match(
    whole.slice(screenAt),
    /^[^]*<\/section>\s*<script id="__COURIER_DATA__"[^]*<\/html>\s*$/,
    'then only the tail',
  )
  t.notMatch(whole, 'failed after the shell', 'the message stays on the server')
  const errorLines = logs().filter((line) => line.err && line.reqId === headers['x-request-id'])
  t.equal(errorLines.length, 1, 'logged once')
  t.match(errorLines[0], { level: 50, msg: 'render failed', digest })
})

t.test('a page that renders fine ends without an error screen', async (t) => {
  const { app } = await build(t, { COURIER_TEST_ROUTES: 'true' })
  const response = await app.inject('/__test/slow?delay=10')
  t.equal(response.statusCode, 200)
  t.notMatch(response.body, 'id="__COURIER_LATE_ERROR__"')
})

t.test('the error test routes are absent unless COURIER_TEST_ROUTES is on', async (t) => {
  const { app } = await build(t)
  for (const url of ['/__test/server-error', '/__test/shell-error', '/__test/late-error', '/__test/client-error']) {
    const response = await app.inject(url)
    t.equal(response.statusCode, 404, url)
  }
})
