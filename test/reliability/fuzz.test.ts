/**
 * The fuzz pass (docs/reliability.md "Hostile input"): request lines generated from the site's route shapes, mutated the ways hostile and broken
 * clients mutate them, sent as raw bytes over real sockets to the whole app listening on loopback. Every request must
 * be answered (or the connection closed after a 4xx), never with a 5xx, and every error status by the status-title
 * table; the server must neither crash nor hang.
 *
 * Deterministic: a seeded PRNG makes every request; the seed is printed, and FUZZ_SEED=<seed> replays the same run.
 * FUZZ_COUNT changes the number of requests (default 10,000). A failing case is printed as the raw request to replay.
 *
 *   NODE_ENV=production npx tap --disable-coverage --jobs=1 --timeout=300 \
 *     test/reliability/fuzz.test.ts
 */
import { readdirSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { images } from '../../config/images.ts'
import { statusTitle } from '../../config/status-titles.ts'
import { sitePages as pages } from '../helpers/page-table.ts'
import { build } from '../helpers/app.ts'
import { fixtureContentDir } from '../helpers/content.ts'
import { listen } from '../helpers/http.ts'
import { rawGet, rawRequest, type RawReply } from '../helpers/raw.ts'

const count = Number(process.env.FUZZ_COUNT ?? 10_000)
const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 32))
/** With FUZZ_SEED, sends only this case of the run (the cases before it are still generated, not sent). */
const onlyCase = process.env.FUZZ_CASE === undefined ? undefined : Number(process.env.FUZZ_CASE)
/** Connections in flight at once: enough to overlap renders, few enough for a shared 2-core machine. */
const concurrency = 16
/** A request not answered by then counts as a hang (the server's own time-outs below are far shorter). */
const hangAfterMs = 15_000

/** mulberry32: small, fast, and the same sequence for the same seed on every platform. */
function prng(state: number) {
  return function next(): number {
    state = (state + 0x6d2b79f5) | 0
    let value = Math.imul(state ^ (state >>> 15), 1 | state)
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
}

type Random = ReturnType<typeof prng>

function pick<T>(random: Random, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!
}

function chance(random: Random, probability: number): boolean {
  return random() < probability
}

const rootDir = path.resolve(import.meta.dirname, '../..')
const clientChunks = readdirSync(path.join(rootDir, 'dist/client/chunks'))
/** The public folder's images, whatever the site holds (a missing one stands in when it holds none). */
const publicImages = readdirSync(path.join(rootDir, 'client/public/images'))
  .filter((name) => /\.(jpe?g|png|webp|avif|gif)$/.test(name))
  .map((name) => `/images/${name}`)
publicImages.push('/images/none.jpg')
/** The names of the guides the app reads (the tests' own content). */
const fixtureGuides = readdirSync(path.join(fixtureContentDir, 'guides')).map((name) => name.replace(/\.md$/, ''))

/** The page table's paths: a route's parameters filled with names that may or may not exist. */
function pagePath(random: Random, pattern: string): string {
  return pattern.replace(/:\w+/g, () =>
    pick(random, [...fixtureGuides, 'no-such-name', 'a', 'x'.repeat(1 + Math.floor(random() * 40))]),
  )
}

/** A page's data URL (`/` is `index`), as the client router asks for it. */
function dataPath(id: string, pagePathname: string): string {
  return `/_next/data/${id}${pagePathname === '/' ? '/index' : pagePathname}.json`
}

/** The site's URL shapes, derived from the page table and the build; `id` is the deployment id. */
function routeShape(random: Random, id: string): string {
  const width = pick(random, [images.deviceSizes[0], images.imageSizes[2], 641, 0, -1, 99999, 'abc'])
  const quality = pick(random, [75, 75, 75, 0, 101, 'q'])
  const image = pick(random, [
    ...publicImages,
    '/images/none.jpg',
    'https://evil.example/x.jpg',
    '//evil.example/x.jpg',
    '/favicon.ico',
    '../package.json',
  ])
  const page = pagePath(random, pick(random, pages).path)
  return pick(random, [
    page,
    page,
    '/no-such-page',
    `${page}/no-such-page`,
    dataPath(id, page),
    dataPath('dpl-old', page),
    `/_next/image?url=${image}&w=${width}&q=${quality}`,
    `/_next/image?url=${encodeURIComponent(image)}&w=${images.deviceSizes[0]}&q=75`,
    `/_next/image?w=${width}`,
    '/api/health',
    '/api/image-widths',
    '/api/client-errors',
    '/api/no-such-route',
    `/_next/static/chunks/${pick(random, clientChunks)}`,
    '/_next/static/chunks/index-00000000.js',
    '/favicon.ico',
    pick(random, publicImages),
    '/robots.txt',
    '/sitemap.xml',
    '/sitemap-0.xml',
  ])
}

function hex(code: number, random: Random): string {
  const text = code.toString(16).padStart(2, '0')
  return `%${chance(random, 0.5) ? text.toUpperCase() : text}`
}

/** One mutation of a request target. */
const mutations: ReadonlyArray<(target: string, random: Random) => string> = [
  // Percent-encode one character (upper or lower case hex).
  (target, random) => {
    const at = 1 + Math.floor(random() * Math.max(1, target.length - 1))
    return target.slice(0, at) + hex(target.charCodeAt(at) & 0xff, random) + target.slice(at + 1)
  },
  // Double encoding: a `%` becomes `%25`, or a whole encoded dot segment.
  (target) => target.replace('%', '%25'),
  (target, random) => insertSegment(target, random, pick(random, ['%252e%252e', '%252f', '%25c0%25ae'])),
  // Overlong UTF-8 for `/` and `.`.
  (target, random) =>
    insertSegment(target, random, pick(random, ['%c0%af', '%c0%ae%c0%ae', '%e0%80%af', '%C0%AE', '%f0%80%80%af'])),
  // Invalid escapes.
  (target, random) =>
    insertSegment(target, random, pick(random, ['%', '%zz', '%g1', '%e0%a4%a', '%%', '%u002e', '%0', '%ff%fe'])),
  // Dot segments, plain and encoded.
  (target, random) =>
    insertSegment(target, random, pick(random, ['.', '..', '%2e', '%2e%2e', '%2E%2E', '.%2e', '...', '..;'])),
  // Unicode: raw UTF-8 bytes and their escapes, line separators, right-to-left marks, full-width forms.
  (target, random) =>
    insertSegment(
      target,
      random,
      pick(random, [
        'é',
        '%C3%A9',
        '😀',
        '%F0%9F%98%80',
        '\u2028',
        '%E2%80%A8',
        '\u202e',
        '／',
        '%EF%BC%8F',
        'ｆａｑ',
        'ﬁ',
      ]),
    ),
  // Long segments.
  (target, random) => insertSegment(target, random, 'L'.repeat(100 + Math.floor(random() * 9000))),
  // Empty segments and backslashes.
  (target) => target.replace('/', '//'),
  (target) => target.replace('/', '/\\'),
  (target, random) =>
    insertSegment(
      target,
      random,
      pick(random, ['%2f', '%2F', '%5c', '%5C', '%00', '%0a', '%0d%0a', '%09', '%20', '+']),
    ),
  // Query string games.
  (target, random) =>
    `${target}${target.includes('?') ? '&' : '?'}${pick(random, [
      'w=1&w=2',
      'url=',
      'q=%',
      '__proto__[x]=1',
      'constructor[prototype][x]=1',
      'a'.repeat(2000),
      '&&&',
      '=',
      'x=%ZZ',
      'token=s3cret',
    ])}`,
  // Trailing slash or fragment.
  (target, random) => target + pick(random, ['/', '//', '#x', '#/../page', '?', '?#']),
  // Absolute and asterisk forms.
  (target, random) =>
    pick(random, ['http://evil.example', 'HTTPS://evil.example:443', 'http://[::1]', 'ftp://x']) + target,
  (_target, random) => pick(random, ['*', '*page', '', ' ', 'page', '..', '\\page']),
]

/** Inserts `segment` as (or into) a path segment at a random place of the path. */
function insertSegment(target: string, random: Random, segment: string): string {
  const queryAt = target.indexOf('?')
  const pathPart = queryAt === -1 ? target : target.slice(0, queryAt)
  const rest = queryAt === -1 ? '' : target.slice(queryAt)
  const slashes = [...pathPart.matchAll(/\//g)].map((match) => match.index)
  const at = slashes.length > 0 ? pick(random, slashes) + 1 : pathPart.length
  const glue = chance(random, 0.7) ? '/' : ''
  return pathPart.slice(0, at) + segment + glue + pathPart.slice(at) + rest
}

/** Methods of the 20% of requests that are not a plain GET. */
const methods = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'OPTIONS',
  'PATCH',
  'PROPFIND',
  'TRACE',
  'CONNECT',
  'get',
  'GeT',
  'FOO',
  'G ET',
  'MKCOL',
  'QUERY',
  'X'.repeat(40),
  '',
]
/** Versions of the 10% of requests that do not say HTTP/1.1. */
const versions = ['HTTP/1.0', 'HTTP/2.0', 'HTTP/1.2', 'HTTP/0.9', 'http/1.1', 'HTTP/1.1 extra', 'HTTP/9.9', '']
const oddHosts = ['Host: evil.example', 'Host:', 'Host: a b', 'Host: courier.test\r\nHost: evil.example']
const extraHeaders = [
  'Accept: text/html',
  'Accept: application/json',
  'Accept: image/avif,image/webp,*/*',
  'Accept: */*',
  'Accept: \u00ff',
  'Accept-Encoding: gzip, br',
  'Accept-Encoding: x'.padEnd(300, ','),
  'Cookie: a=1',
  'Cookie: =;=;',
  'X-Forwarded-For: 203.0.113.9',
  'X-Forwarded-Host: evil.example',
  'If-None-Match: "x"',
  'If-None-Match: *',
  'If-Modified-Since: yesterday',
  'Range: bytes=0-1',
  'Range: bytes=garbage',
  'Range: bytes=5-1,0-0,1-',
  'X-Request-Id: ../x',
  'X-Request-Id: fuzz.ok-1',
  'Content-Type: application/json',
  'Content-Type: text/plain',
  'Content-Type: application/json; charset=utf-16',
  'Upgrade: websocket',
  'Expect: 100-continue',
  'Save-Data: on',
  'X-Middleware-Subrequest: middleware',
  'User-Agent: \u0000',
  'Referer: javascript:alert(1)',
  'Origin: null',
  'Content-Length: 0',
  'Transfer-Encoding: gzip',
]
const bodies = [
  '',
  '{}',
  '{"source":"onerror","message":"x","url":"https://courier.test/"}',
  '{"source":',
  'null',
  '[]',
  'x'.repeat(100),
]

interface Case {
  index: number
  request: string
}

function generate(random: Random, index: number, id: string): Case {
  let target = routeShape(random, id)
  const mutationCount = pick(random, [0, 0, 1, 1, 2, 3])
  for (let step = 0; step < mutationCount; step++) target = pick(random, mutations)(target, random)
  const method = chance(random, 0.8) ? 'GET' : pick(random, methods)
  const version = chance(random, 0.9) ? 'HTTP/1.1' : pick(random, versions)
  const lines = [[method, target, version].filter((part) => part !== '').join(' ')]
  if (!chance(random, 0.03)) lines.push(chance(random, 0.95) ? 'Host: courier.test' : pick(random, oddHosts))
  const headerCount = Math.floor(random() * 4)
  for (let header = 0; header < headerCount; header++) {
    const line = pick(random, extraHeaders)
    lines.push(line)
    // Duplicate headers: the same line again, or the same name with another value.
    if (chance(random, 0.25)) lines.push(chance(random, 0.5) ? line : pick(random, extraHeaders))
  }
  let body = ''
  if (['POST', 'PUT', 'PATCH', 'DELETE', 'PROPFIND'].includes(method) && chance(random, 0.7)) {
    body = pick(random, bodies)
    if (chance(random, 0.8)) lines.push(`Content-Length: ${Buffer.byteLength(body)}`)
    else {
      lines.push('Transfer-Encoding: chunked')
      body = body ? `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n` : '0\r\n\r\n'
    }
  }
  lines.push('Connection: close')
  return { index, request: `${lines.join('\r\n')}\r\n\r\n${body}` }
}

/** What is wrong with the answer to one case, if anything. */
function judge(reply: RawReply, head: boolean): string | undefined {
  if (!reply.closedByServer) return `no answer within ${hangAfterMs} ms (a hang)`
  if (reply.status === 0) return 'the connection closed without a response'
  if (reply.status >= 500) return `a ${reply.status}`
  // Page data of a path no page serves: the data answer the client router reads (plugins/page-data.ts), not an error.
  if (reply.status === 404 && reply.body === '{"notFound":true}') return undefined
  // A page action's refusal (docs/forms.md): the page, or its data, again with what the action said; not an error.
  if ((reply.status === 422 || reply.status === 400) && reply.body.includes('"actionData":')) return undefined
  if (reply.status >= 400 && !head && reply.body !== '') {
    const title = statusTitle(reply.status)
    const json = /json/.test(reply.headers['content-type'] ?? '')
    if (json) {
      let error: unknown
      try {
        error = (JSON.parse(reply.body) as { error?: unknown }).error
      } catch {
        return `${reply.status} with a body that is not JSON`
      }
      if (error !== title) return `${reply.status} titled ${JSON.stringify(error)}, not "${title}"`
    } else if (!reply.body.includes(`<title>${reply.status}: ${title}</title>`)) {
      return `${reply.status} without the title "${title}"`
    }
  }
  return undefined
}

t.test(
  `fuzz: ${count} generated request lines, no 5xx, no hang, no crash, every error status by the table`,
  async (t) => {
    t.comment(`FUZZ_SEED=${seed} FUZZ_COUNT=${count}`)
    // Short time-outs: a request the parser keeps waiting on (a body never sent) ends in seconds, with 408.
    const limits = { headersTimeoutMs: 2_000, requestTimeoutMs: 3_000, timeoutCheckIntervalMs: 250 }
    const { app, logs } = await build(t, { LOG_LEVEL: 'info' }, { limits })
    const origin = await listen(app)
    const random = prng(seed)
    const generated = Array.from({ length: count }, (_, index) => generate(random, index, app.deploymentId))
    const cases = onlyCase === undefined ? generated : generated.filter((fuzzCase) => fuzzCase.index === onlyCase)

    const statuses = new Map<number, number>()
    const failures: Array<{ index: number; request: string; problem: string }> = []
    let next = 0
    const started = performance.now()
    async function worker() {
      while (next < cases.length) {
        const fuzzCase = cases[next++]!
        const reply = await rawRequest(origin, Buffer.from(fuzzCase.request, 'utf8'), { timeoutMs: hangAfterMs })
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1)
        const problem = judge(reply, /^HEAD /i.test(fuzzCase.request))
        if (problem) failures.push({ index: fuzzCase.index, request: fuzzCase.request, problem })
      }
    }
    await Promise.all(Array.from({ length: concurrency }, worker))
    const seconds = (performance.now() - started) / 1000

    const histogram = Object.fromEntries([...statuses].sort(([a], [b]) => a - b))
    t.comment(`${cases.length} requests in ${seconds.toFixed(1)} s (seed ${seed}): ${JSON.stringify(histogram)}`)
    for (const failure of failures.slice(0, 20)) {
      t.comment(`case ${failure.index}: ${failure.problem}`)
      t.comment(
        `  replay: FUZZ_SEED=${seed} FUZZ_CASE=${failure.index}; the raw request: ${JSON.stringify(failure.request)}`,
      )
    }
    t.equal(failures.length, 0, `${failures.length} of ${cases.length} answers wrong`)
    const answered = [...statuses].reduce((sum, [, n]) => sum + n, 0)
    t.equal(answered, cases.length, 'every request came back')

    const errorLines = logs().filter((line) => line.level >= 50)
    t.same(errorLines.slice(0, 5), [], `${errorLines.length} error lines in the log`)
    const health = await rawGet(origin, '/api/health')
    t.equal(health.status, 200, 'the server still serves')
  },
)
