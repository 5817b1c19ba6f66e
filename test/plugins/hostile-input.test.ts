/**
 * Hostile input (docs/reliability.md "Hostile input"): one test per kind of request an attacker or a broken client sends. Requests go over real
 * sockets as raw bytes: a client library (and inject) would resolve dot segments, encode the path or refuse the very
 * input looked for here. The raw-path table of the request filter (request-filter.test.ts) covers which paths get the
 * site policy; this file covers limits, static files, spoofed headers and what reaches the log.
 */
import { randomBytes } from 'node:crypto'
import { cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { statusTitle } from '../../config/status-titles.ts'
import { clientErrorLimits } from '../../config/client-errors.ts'
import { serverLimits } from '../../config/server.ts'
import { build, buildUnready, type LogLine } from '../helpers/app.ts'
import { listen } from '../helpers/http.ts'
import { guides } from '../helpers/content.ts'
import { configRedirect, publicImagePath, testGuidePath, testGuidesPath, testRoutes } from '../helpers/site-pages.ts'
import { rawGet, rawRequest, type RawReply } from '../helpers/raw.ts'

/** A public image of the site (client/public/images/), whatever it is. */
const image = publicImagePath()

/** The error page's `<title>`, or the JSON body's `error`, is the status-title table's. */
function assertTitle(t: Test, reply: RawReply, what: string) {
  const title = statusTitle(reply.status)
  if (/json/.test(reply.headers['content-type'] ?? '')) {
    t.equal((JSON.parse(reply.body) as { error?: string }).error, title, `${what}: JSON error is "${title}"`)
  } else {
    t.match(reply.body, `<title>${reply.status}: ${title}</title>`, `${what}: page title is "${title}"`)
  }
}

t.test('slow headers and slow bodies get 408 with the table title once the time-outs pass', async (t) => {
  const limits = { headersTimeoutMs: 400, requestTimeoutMs: 800, timeoutCheckIntervalMs: 100 }
  const { app, logs } = await build(t, testRoutes, { limits })
  const origin = await listen(app)
  // Headers that never end: the request line and one header, then silence.
  const page = await rawRequest(origin, `GET ${testGuidesPath} HTTP/1.1\r\nHost: courier.test\r\nX-Slow: 1\r\n`)
  t.equal(page.status, 408, 'slow headers: 408')
  t.ok(page.closedByServer, 'the server closed the connection')
  t.equal(page.headers.connection, 'close')
  assertTitle(t, page, 'slow headers on a page')
  const api = await rawRequest(origin, 'GET /api/health HTTP/1.1\r\nHost: courier.test\r\n')
  t.equal(api.status, 408)
  assertTitle(t, api, 'slow headers on the API')
  // A body announced but never sent in full: the whole-request time-out.
  const body = await rawRequest(
    origin,
    'POST /api/client-errors HTTP/1.1\r\nHost: courier.test\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"source":',
  )
  t.equal(body.status, 408, 'slow body: 408')
  t.ok(body.closedByServer)
  assertTitle(t, body, 'slow body')
  t.ok(
    logs().some((line) => line.msg === 'connection rejected' && line.statusCode === 408),
    'logged as rejected',
  )
  t.notOk(
    logs().some((line) => line.level >= 50),
    'no error line',
  )
})

t.test(
  'the time-outs hold within a second: Node checks them every timeoutCheckIntervalMs, not every 30 s',
  async (t) => {
    t.ok(serverLimits.timeoutCheckIntervalMs <= 1_000, `${serverLimits.timeoutCheckIntervalMs} ms`)
    const { app } = await build(t)
    const server = app.server as unknown as { connectionsCheckingInterval?: number }
    t.equal(server.connectionsCheckingInterval, serverLimits.timeoutCheckIntervalMs)
    t.equal(app.server.headersTimeout, serverLimits.headersTimeoutMs)
    t.equal(app.server.requestTimeout, serverLimits.requestTimeoutMs)
  },
)

t.test('oversized headers: 431 with the table title, many small headers as well as one big one', async (t) => {
  const { app } = await build(t, testRoutes)
  const origin = await listen(app)
  const many = Array.from({ length: 400 }, (_, index) => `X-Filler-${index}: ${'v'.repeat(60)}`)
  for (const target of [testGuidesPath, '/api/health', image]) {
    const reply = await rawGet(origin, target, many)
    t.equal(reply.status, 431, `${target}: 431`)
    t.ok(reply.closedByServer)
    assertTitle(t, reply, target)
  }
  const cookie = await rawGet(origin, '/', [`Cookie: ${'c=1; '.repeat(4_000)}`])
  t.equal(cookie.status, 431, 'a huge cookie: 431')
  const fine = await rawGet(origin, '/', many.slice(0, 50))
  t.equal(fine.status, 200, 'under the limit: served')
})

t.test('oversized URLs: 414 or 431 past the header limit, 400, 403 or 404 below it; never a 5xx', async (t) => {
  const { app } = await build(t, testRoutes)
  const origin = await listen(app)
  const huge = 'a'.repeat(serverLimits.maxHeaderSizeBytes + 1024)
  for (const target of [
    `/${huge}`,
    testGuidePath(huge),
    `/_next/image?url=/images/${huge}&w=640&q=75`,
    `/api/${huge}`,
    `/?q=${huge}`,
  ]) {
    const reply = await rawGet(origin, target)
    t.ok([414, 431].includes(reply.status), `${target.slice(0, 24)}...: ${reply.status}`)
    assertTitle(t, reply, target.slice(0, 24))
  }
  const long = 'b'.repeat(8 * 1024)
  // A path no route takes (a parameter past the router's maxParamLength included) is asked of the public folder's
  // wildcard route, whose index of the folder knows it names no file: 404. @fastify/static, asked for a built chunk of
  // that name, cannot check the spelling of a name longer than the file system allows: 403.
  const cases = [
    [`/${long}`, 404],
    [testGuidePath(long), 404],
    [`/_next/data/${long}/index.json`, 404],
    [`/images/${long}.jpg`, 404],
    [`/_next/static/chunks/${long}.js`, 403],
    [`/_next/image?url=/images/${long}.jpg&w=640&q=75`, 400],
    [`${testGuidesPath}?q=${long}`, 200],
  ] as const
  for (const [target, status] of cases) {
    const reply = await rawGet(origin, target)
    t.equal(reply.status, status, `${target.slice(0, 24)}... (8 KiB): ${status}`)
    if (status !== 200) assertTitle(t, reply, target.slice(0, 24))
  }
})

t.test('bodies over the limit: 413 with the table title, however the length is announced', async (t) => {
  const { app, logs } = await build(t)
  const origin = await listen(app)
  const over = clientErrorLimits.bodyLimitBytes + 1
  const report = JSON.stringify({ source: 'onerror', message: 'x'.repeat(over), url: 'https://courier.test/' })
  const post = (headers: string[], body: string, target = '/api/client-errors') => {
    const head = [
      `POST ${target} HTTP/1.1`,
      'Host: courier.test',
      'Content-Type: application/json',
      'Connection: close',
      ...headers,
    ]
    return rawRequest(origin, `${head.join('\r\n')}\r\n\r\n${body}`)
  }
  const declared = await post([`Content-Length: ${Buffer.byteLength(report)}`], report)
  t.equal(declared.status, 413, 'Content-Length over the limit')
  assertTitle(t, declared, 'declared length')
  t.match(JSON.parse(declared.body), { code: 'FST_ERR_CTP_BODY_TOO_LARGE' })
  const chunked = await post(['Transfer-Encoding: chunked'], `${report.length.toString(16)}\r\n${report}\r\n0\r\n\r\n`)
  t.equal(chunked.status, 413, 'chunked, no length announced')
  assertTitle(t, chunked, 'chunked')
  // A length announced far beyond anything: refused at once, nothing read or waited for.
  const absurd = await post(['Content-Length: 1000000000000'], '{}')
  t.equal(absurd.status, 413, 'an absurd Content-Length')
  t.ok(absurd.closedByServer)
  // Framing an attacker uses to smuggle a second request: refused by Node's parser.
  const smuggled = await post(['Content-Length: 4', 'Transfer-Encoding: chunked'], '0\r\n\r\n')
  t.equal(smuggled.status, 400, 'Content-Length with Transfer-Encoding: 400')
  const twoLengths = await post(['Content-Length: 2', 'Content-Length: 3'], '{}')
  t.equal(twoLengths.status, 400, 'two different Content-Lengths: 400')
  const badLength = await post(['Content-Length: 12abc'], '{}')
  t.equal(badLength.status, 400, 'a malformed Content-Length: 400')
  // The app-wide limit everywhere else: the not-found handler reads a body like a route does (413 past the limit);
  // page paths refuse other methods before reading anything (405).
  const big = 'y'.repeat(serverLimits.bodyLimitBytes + 1)
  for (const [target, status] of [
    ['/api/health', 413],
    ['/', 405],
    ['/api/no-such-route', 413],
    ['/no-such-page', 413],
  ] as const) {
    const reply = await post([`Content-Length: ${big.length}`], big, target)
    t.equal(reply.status, status, `POST ${target} with ${big.length} bytes: ${status}`)
    assertTitle(t, reply, target)
  }
  t.notOk(
    logs().some((line) => line.level >= 50),
    'no error line',
  )
})

t.test('route parameters over maxParamLength: 404 with the table title, HTML for pages, JSON for data', async (t) => {
  const { app } = await build(t, testRoutes)
  const origin = await listen(app)
  const long = 'p'.repeat(serverLimits.maxParamLength + 1)
  const targets = [
    testGuidePath(long),
    `/_next/data/${long}/index.json`,
    `/_next/data/${long}${testGuidePath(long)}.json`,
    `${testGuidePath(long)}?x=1`,
  ]
  for (const target of targets) {
    const reply = await rawGet(origin, target)
    t.equal(reply.status, 404, `${target.slice(0, 30)}...: 404`)
    assertTitle(t, reply, target.slice(0, 30))
    t.equal(reply.headers['cache-control'], 'no-store')
  }
  const atLimit = await rawGet(origin, testGuidePath('p'.repeat(serverLimits.maxParamLength)))
  t.equal(atLimit.status, 404, 'at the limit: the page decides (no such guide)')
  assertTitle(t, atLimit, 'at the limit')
})

t.test('CONNECT (Courier is no proxy): 405 by the table and the connection closes, never a silent drop', async (t) => {
  const { app, logs } = await build(t, testRoutes)
  const origin = await listen(app)
  for (const target of ['evil.example:443', '127.0.0.1:22', testGuidesPath, '/api/health']) {
    const reply = await rawRequest(origin, `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`)
    t.equal(reply.status, 405, `CONNECT ${target}: 405`)
    t.ok(reply.closedByServer, 'the server closed the connection')
    t.equal(reply.headers['cache-control'], 'no-store')
    assertTitle(t, reply, `CONNECT ${target}`)
    t.match(reply.headers['content-type'], target.startsWith('/api/') ? /^application\/json/ : /^text\/html/)
  }
  t.ok(
    logs().some((line) => line.msg === 'connection rejected' && line.method === 'CONNECT'),
    'logged as rejected',
  )
  t.equal((await rawGet(origin, '/api/health')).status, 200, 'the server keeps serving')
})

/** Files planted where no request may reach them; each holds a random token that must never come back. */
interface Planted {
  /** Path from the project root. */
  file: string
  token: string
}

async function plant(t: Test, root: string, files: string[]): Promise<Planted[]> {
  const planted: Planted[] = []
  for (const file of files) {
    const token = `planted-${randomBytes(12).toString('hex')}`
    await mkdir(path.dirname(path.join(root, file)), { recursive: true })
    await writeFile(path.join(root, file), `${token}\n`)
    t.teardown(() => rm(path.join(root, file), { force: true }))
    planted.push({ file, token })
  }
  return planted
}

/**
 * A project root of the test's own, so that planting files never writes into the checkout while other test files run:
 * the served folders (client/public, the build in dist/) copied, every other entry of the project linked.
 */
async function projectCopy(t: Test): Promise<string> {
  const projectRoot = path.resolve(import.meta.dirname, '../..')
  const root = await mkdtemp(path.join(tmpdir(), 'courier-hostile-root-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  for (const entry of await readdir(projectRoot)) {
    if (entry === 'client' || entry === 'dist') continue
    await symlink(path.join(projectRoot, entry), path.join(root, entry))
  }
  await mkdir(path.join(root, 'client'))
  for (const entry of await readdir(path.join(projectRoot, 'client'))) {
    if (entry !== 'public') await symlink(path.join(projectRoot, 'client', entry), path.join(root, 'client', entry))
  }
  await cp(path.join(projectRoot, 'client', 'public'), path.join(root, 'client', 'public'), { recursive: true })
  await cp(path.join(projectRoot, 'dist'), path.join(root, 'dist'), { recursive: true })
  return root
}

/** `..` as a path parser might still read it. */
const dotDots = ['..', '%2e%2e', '%2E%2E', '.%2e', '%2E.', '%252e%252e', '%c0%ae%c0%ae', '%u002e%u002e']
/** `/` likewise. */
const separators = ['/', '%2f', '%2F', '%5c', '%5C', '\\', '%252f', '%c0%af']

t.test(
  'static files with raw paths: 400, 403 or 404; never a file outside the folders, a listing or a redirect',
  async (t) => {
    const rootDir = await projectCopy(t)
    const suffix = randomBytes(4).toString('hex')
    // Dotfiles inside the served folders exist before start-up, so a file list made at start-up would hold them.
    const inside = await plant(t, rootDir, [
      `client/public/.planted-${suffix}`,
      `client/public/images/.planted-${suffix}`,
      `dist/client/chunks/.planted-${suffix}`,
    ])
    const { app } = await build(t, { DIST_DIR: path.join(rootDir, 'dist') }, {}, { rootDir })
    const origin = await listen(app)
    // Beside the served folders, and in the server build's chunks folder (a second root @fastify/vite adds).
    const outside = await plant(t, rootDir, [
      `client/planted-${suffix}.txt`,
      `dist/planted-${suffix}.txt`,
      `dist/server/chunks/planted-${suffix}.js`,
    ])
    const tokens = [...inside, ...outside].map((entry) => entry.token)

    // Each mount, and how many levels up the planted file beside it is.
    const mounts = [
      { prefix: '/', up: 1, file: `planted-${suffix}.txt` },
      { prefix: '/images/', up: 2, file: `planted-${suffix}.txt` },
      { prefix: '/_next/static/', up: 2, file: `planted-${suffix}.txt` },
      { prefix: '/_next/static/chunks/', up: 3, file: `planted-${suffix}.txt` },
      { prefix: '/_next/static/chunks/', up: 2, file: `server/chunks/planted-${suffix}.js` },
      { prefix: '/_next/static/chunks/', up: 3, file: 'package.json' },
      { prefix: '/images/', up: 2, file: 'package.json' },
    ]
    const climbs: string[] = []
    for (const { prefix, up, file } of mounts) {
      for (const dotDot of dotDots) {
        for (const separator of separators) climbs.push(`${prefix}${`${dotDot}${separator}`.repeat(up)}${file}`)
      }
      climbs.push(`${prefix}x/${'../'.repeat(up + 1)}${file}`, `${prefix}./${'../'.repeat(up)}${file}`)
    }
    const named = [
      `/_next/static/chunks/planted-${suffix}.js`,
      `/.planted-${suffix}`,
      `/%2eplanted-${suffix}`,
      `/images/.planted-${suffix}`,
      `/images/%2Eplanted-${suffix}`,
      `/_next/static/chunks/.planted-${suffix}`,
      `/_next/static/.vite/manifest.json`,
      `/_next/static/%2evite/manifest.json`,
      '/_next/static/index.html',
      '/robots.txt/../package.json',
      '/favicon.ico/..%2f..%2fpackage.json',
      `${image}/..%2f..%2f..%2fpackage.json`,
    ]
    // Every chunk of the server build by its own name (not one the client build has too): server code is never public.
    const clientChunkNames = await readdir(path.join(rootDir, 'dist/client/chunks'))
    const serverChunkNames = (await readdir(path.join(rootDir, 'dist/server/chunks'))).filter(
      (name) => !clientChunkNames.includes(name) && !name.includes('planted'),
    )
    const serverChunks = serverChunkNames.map((name) => `/_next/static/chunks/${name}`)
    const directories = [
      '/images',
      '/images/',
      '/images//',
      '/images/.',
      '/images/%2e',
      '/_next',
      '/_next/',
      '/_next/static',
      '/_next/static/',
      '/_next/static/chunks',
      '/_next/static/chunks/',
      '/_next/static/chunks/.',
      '/_next/static/.vite',
      '/_next/static/.vite/',
    ]
    const redirects = ['', '/images', '/_next/static', '/_next/static/chunks'].flatMap((prefix) => [
      `${prefix}//evil.example/%2e%2e`,
      `${prefix}//evil.example/`,
      `${prefix}/\\evil.example`,
      `${prefix}/\\\\evil.example/`,
      `${prefix}/%2fevil.example`,
      `${prefix}/%2f%2fevil.example/`,
      `${prefix}/%5cevil.example`,
      `${prefix}/%5c%5cevil.example/%2e%2e`,
      `${prefix}/..//evil.example`,
      `${prefix}/%09/evil.example`,
    ])
    // A listing would name what no page links to: the public images, the test pages' chunks, the server build's.
    const unlinked = [
      ...(await readdir(path.join(rootDir, 'client/public/images'))),
      ...clientChunkNames.filter((name) => name.startsWith('test-')),
      ...serverChunkNames,
    ].filter((name) => !name.includes('planted'))
    const statuses = new Map<number, number>()
    for (const target of [...climbs, ...named, ...serverChunks, ...directories, ...redirects]) {
      const reply = await rawGet(origin, target)
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1)
      if (![400, 403, 404].includes(reply.status)) t.fail(`${target}: ${reply.status}`)
      for (const token of tokens) if (reply.raw.includes(token)) t.fail(`${target}: a planted file came back`)
      if (reply.raw.includes('"name": "courier"')) t.fail(`${target}: package.json came back`)
      const listed = unlinked.find((name) => reply.body.includes(name) && !target.includes(name))
      if (listed) t.fail(`${target}: names ${listed}, as a folder listing would`)
      if (reply.headers.location !== undefined) t.fail(`${target}: redirected to ${reply.headers.location}`)
      if (reply.status < 500) assertTitle(t, reply, target)
    }
    const asked = climbs.length + named.length + serverChunks.length + directories.length + redirects.length
    t.comment(`${asked} paths: ${JSON.stringify(Object.fromEntries(statuses))}`)
    t.ok(climbs.length >= 400, `${climbs.length} climbs out of a folder`)
    t.ok(serverChunks.length > 0, `${serverChunks.length} server chunks asked for by name`)
    // The served files are still served.
    for (const target of ['/favicon.ico', image]) t.equal((await rawGet(origin, target)).status, 200, target)
    const client = clientChunkNames.find((name) => name.endsWith('.js'))
    t.equal((await rawGet(origin, `/_next/static/chunks/${client}`)).status, 200, 'a client chunk')
  },
)

/** Headers a client can send to pose as a proxy: with TRUST_PROXY off, none may change anything. */
const spoofedHeaders = [
  'X-Forwarded-Host: evil.example',
  'X-Forwarded-Proto: https',
  'X-Forwarded-For: 203.0.113.66',
  'X-Forwarded-Port: 8443',
  'X-Forwarded-Prefix: /evil',
  'X-Forwarded-Server: evil.example',
  'Forwarded: for=203.0.113.66;host=evil.example;proto=https',
  'X-Real-IP: 203.0.113.66',
  'X-Original-Host: evil.example',
  'X-Host: evil.example',
]

/** A response with what differs on every request anyway (date, request id, nonce, cache state) taken out. */
function comparable(reply: RawReply) {
  const { date, 'x-request-id': _id, 'x-image-cache': _cache, ...headers } = reply.headers
  const withoutNonces = (text: string) =>
    text.replace(/nonce-[A-Za-z0-9+/=]+/g, 'nonce-N').replace(/nonce="[^"]*"/g, 'nonce="N"')
  for (const name of Object.keys(headers)) headers[name] = withoutNonces(headers[name]!)
  return { status: reply.status, headers, body: withoutNonces(reply.body) }
}

/** The fields of a log line that do not change from one identical request to the next. */
function stableFields(line: LogLine) {
  const { time: _time, reqId: _reqId, ms: _ms, pid: _pid, ...fields } = line
  return fields
}

const ofARequest = (line: Record<string, unknown>) => line.reqId !== undefined

t.test(
  'Host and X-Forwarded-* spoofing (TRUST_PROXY off) changes no absolute URL, redirect or log field',
  async (t) => {
    const built = await buildUnready(t, testRoutes)
    built.app.get('/api/test-echo-origin', async (request) => ({
      ip: request.ip,
      ips: request.ips ?? null,
      host: request.host,
      hostname: request.hostname,
      protocol: request.protocol,
    }))
    await built.app.ready()
    const { app, logs, config } = built
    t.equal(config.trustProxy, false, 'TRUST_PROXY is off by default')
    const origin = await listen(app)
    const id = app.deploymentId
    const targets = [
      '/',
      testGuidesPath,
      testGuidePath(guides[0]!.slug),
      '/no-such-page',
      '/sitemap.xml',
      '/sitemap-0.xml',
      '/robots.txt',
      configRedirect(guides[0]!.slug).from,
      `/_next/data/${id}${configRedirect(guides[0]!.slug).from}.json`,
      `/_next/data/${id}/index.json`,
      `/_next/image?url=${image}&w=640&q=75`,
      '/api/health',
      '/api/test-echo-origin',
    ]
    for (const target of targets) {
      // Once first, so the baseline is not the one that fills a cache (the image's) and logs it.
      await rawGet(origin, target)
      const before = logs().length
      const baseline = await rawGet(origin, target)
      // A request's own lines: a line of the server's own (the route schemas compiled a moment after listening) may
      // land between any two requests.
      const baselineLines = logs().slice(before).filter(ofARequest).map(stableFields)
      for (const [what, headerLines, hostLine] of [
        ['X-Forwarded-* and Forwarded', spoofedHeaders, 'Host: courier.test'],
        ['a foreign Host as well', spoofedHeaders, 'Host: evil.example'],
      ] as const) {
        const start = logs().length
        const head = [`GET ${target} HTTP/1.1`, hostLine, ...headerLines, 'Connection: close']
        const spoofed = await rawRequest(origin, `${head.join('\r\n')}\r\n\r\n`)
        const spoofedComparable = comparable(spoofed)
        if (target === '/api/test-echo-origin') {
          const seen = JSON.parse(spoofed.body) as Record<string, unknown>
          t.match(seen, { ip: '127.0.0.1', protocol: 'http' }, `${what}: the socket's address and protocol`)
          t.equal(
            seen.hostname,
            hostLine === 'Host: courier.test' ? 'courier.test' : 'evil.example',
            `${what}: Host, never X-Forwarded-Host`,
          )
          continue
        }
        t.same(spoofedComparable, comparable(baseline), `${target} with ${what}: the same response`)
        t.notMatch(
          spoofed.raw,
          /(?:https?:)?\/\/evil\.example/,
          `${target} with ${what}: no URL names the spoofed host`,
        )
        if (spoofed.headers.location) {
          t.equal(
            new URL(spoofed.headers.location, 'http://courier.test').host,
            'courier.test',
            `${target}: a same-site redirect`,
          )
        }
        const lines = logs().slice(start)
        // The port as a value of its own (`:8443`, `"8443"`), not digits inside a timestamp or a duration.
        t.notMatch(
          JSON.stringify(lines),
          /203\.0\.113\.66|evil\.example|[:"]8443\b|\/evil/,
          `${target} with ${what}: no spoofed value in the log`,
        )
        t.same(lines.filter(ofARequest).map(stableFields), baselineLines, `${target} with ${what}: the same log lines`)
      }
    }
    const sitemap = await rawGet(origin, '/sitemap-0.xml', ['X-Forwarded-Host: evil.example'])
    t.match(sitemap.body, `<loc>${config.siteUrl}/</loc>`, 'the sitemap names SITE_URL')
  },
)

t.test('logs: planted secrets never appear; every line of a request carries its reqId', async (t) => {
  const { app, logs } = await build(t, testRoutes)
  const origin = await listen(app)
  const secrets: string[] = []
  const secret = (name: string) => {
    const value = `${name}-${randomBytes(8).toString('hex')}`
    secrets.push(value)
    return value
  }
  const credentials = () => [
    `Cookie: sid=${secret('cookie')}; theme=dark`,
    `Authorization: Bearer ${secret('bearer')}`,
    `Proxy-Authorization: Basic ${secret('proxy')}`,
    `X-Api-Key: ${secret('apikey')}`,
  ]
  const query = () =>
    `token=${secret('token')}&access_token=${secret('access')}&password=${secret('password')}` +
    `&TOKEN=${secret('upper')}&%74oken=${secret('encoded')}&page=2`
  const report = JSON.stringify({
    source: 'boundary',
    message: 'render failed',
    url: `https://courier.test${testGuidesPath}?token=${secret('report-token')}&access_token=${secret('report-access')}`,
    digest: 'abc123',
    password: secret('report-extra-field'),
    headers: { authorization: secret('report-extra-header') },
  })
  const requests: Array<[what: string, head: string, body?: string]> = [
    ['an error page (404)', `GET /no-such-page?${query()} HTTP/1.1`],
    ['a redirect', `GET ${configRedirect(guides[0]!.slug).from}?${query()} HTTP/1.1`],
    ['a data redirect', `GET /_next/data/${app.deploymentId}${configRedirect('a').from}.json?${query()} HTTP/1.1`],
    ['a router-level 400', `GET /%?${query()} HTTP/1.1`],
    ['a filter refusal', `GET ${testGuidesPath}/../x?${query()} HTTP/1.1`],
    ['a 405', `DELETE /?${query()} HTTP/1.1`],
    ['a page (200)', `GET ${testGuidePath(guides[0]!.slug)}?${query()} HTTP/1.1`],
    ['a deployment mismatch', `GET /_next/data/dpl-old/index.json?${query()} HTTP/1.1`],
    ['an image refused', `GET /_next/image?url=${image}&w=641&${query()} HTTP/1.1`],
    ['a server error (500)', `GET /__test/server-error?${query()} HTTP/1.1`],
    ['a client error report', `POST /api/client-errors?${query()} HTTP/1.1`, report],
    [
      'a client error report refused (400)',
      'POST /api/client-errors HTTP/1.1',
      JSON.stringify({ source: 'nope', message: secret('bad-report'), url: 'x' }),
    ],
  ]
  // The one line the app logs by itself after listening (the route schemas compiled between requests) comes first,
  // so that it cannot fall among a request's lines when a first page load takes longer.
  for (let wait = 0; wait < 500 && !logs().some((line) => line.msg === 'route schemas compiled'); wait++) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  for (const [index, [what, head, body]] of requests.entries()) {
    const requestId = `hostile-${index}`
    const start = logs().length
    const bodyLines =
      body === undefined ? [] : ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`]
    const raw = [
      head,
      'Host: courier.test',
      `X-Request-Id: ${requestId}`,
      ...credentials(),
      ...bodyLines,
      'Connection: close',
    ]
    const reply = await rawRequest(origin, `${raw.join('\r\n')}\r\n\r\n${body ?? ''}`)
    t.not(reply.status, 0, `${what}: answered (${reply.status})`)
    // The access line is written when the response is done: wait for it, then take every line since the request.
    for (
      let wait = 0;
      wait < 100 &&
      !logs()
        .slice(start)
        .some((line) => line.msg === 'request completed');
      wait++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const lines = logs().slice(start)
    t.ok(
      lines.some((line) => line.msg === 'request completed'),
      `${what}: an access line`,
    )
    t.ok(
      lines.length >= (index === 10 ? 2 : 1),
      `${what}: ${lines.length} lines (${lines.map((line) => line.msg).join(', ')})`,
    )
    for (const line of lines) t.equal(line.reqId, requestId, `${what}: "${line.msg}" carries the reqId`)
  }
  // One request that fails before the parser makes it a request: logged without a reqId (there is none), no secret.
  await rawGet(origin, '/', [...credentials(), `X-Big: ${'a'.repeat(serverLimits.maxHeaderSizeBytes)}`])
  const text = JSON.stringify(logs())
  for (const value of secrets) {
    const leaks = logs().filter((line) => JSON.stringify(line).includes(value))
    t.same(leaks, [], `${value.split('-').slice(0, -1).join('-')} is not logged`)
  }
  t.ok(
    logs().some((line) => line.msg === 'client error reported'),
    'the report was logged',
  )
  t.ok(
    logs().some((line) => line.msg === 'request failed' && line.reqId === 'hostile-9'),
    'the 500 was logged with its reqId',
  )
  const redacted =
    '/no-such-page?token=[Redacted]&access_token=[Redacted]&password=[Redacted]&TOKEN=[Redacted]&%74oken=[Redacted]&page=2'
  t.match(text, redacted, 'the rest of the URL stays readable')
})
