/**
 * Random requests for the metrics' label bound (test/metrics/fuzz.test.ts, `npm run bench:metrics`): random paths under
 * the site's prefixes, random queries, methods and headers, every random word a fresh token, so a scrape that held
 * any of them as a label value would show it. Seeded: the same seed makes the same requests.
 */
import { Pool } from 'undici'
import { sitePages as pages } from '../helpers/page-table.ts'

/** mulberry32: small, fast, and the same sequence for the same seed on every platform. */
function prng(state: number): () => number {
  return function next(): number {
    state = (state + 0x6d2b79f5) | 0
    let value = Math.imul(state ^ (state >>> 15), 1 | state)
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
}

/** Methods Node's parser takes (it refuses unknown ones before any route), WebDAV's and lower-case-free. */
const methods = [
  'GET',
  'GET',
  'GET',
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'PROPFIND',
  'PURGE',
  'SEARCH',
  'MKCOL',
  'LOCK',
  'REPORT',
]
/** Below every page of the site's table (a parametrised one up to its first parameter), whatever pages it has. */
const pagePrefixes = pages.map((page) => page.path.replace(/:.*$/, '').replace(/\/?$/, '/'))
const serverPrefixes = [
  '/_next/data/',
  '/_next/image',
  '/_next/static/chunks/',
  '/api/',
  '/api/client-errors',
  '/images/',
  '/sitemap-',
  '/__test/',
  '//',
  '/..%2f',
  '/%zz',
]
const prefixes = [...new Set([...pagePrefixes, ...serverPrefixes])]
const headerNames = [
  'accept',
  'accept-encoding',
  'x-deployment-id',
  'content-type',
  'if-none-match',
  'x-request-id',
  'cookie',
  'user-agent',
  'x-forwarded-for',
  'x-custom-label',
]
const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'

export interface RandomRequest {
  method: string
  path: string
  headers: Record<string, string>
  body?: string
}

export interface RequestSource {
  next(): RandomRequest
  /** Every random word put into a request so far: none may appear in a label value. */
  tokens: Set<string>
}

export function randomRequests(seed: number): RequestSource {
  const random = prng(seed)
  const tokens = new Set<string>()
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
  const chance = (probability: number) => random() < probability

  /** A fresh word of 8 to 20 characters, remembered. */
  function token(): string {
    let word = ''
    const length = 8 + Math.floor(random() * 13)
    for (let index = 0; index < length; index++) word += alphabet[Math.floor(random() * alphabet.length)]
    tokens.add(word)
    return word
  }

  /** A path segment: a token, sometimes with characters that must be escaped or that try to escape. */
  function segment(): string {
    const word = token()
    if (chance(0.1)) return `${word}%2e%2e`
    if (chance(0.1)) return encodeURIComponent(`${word} ü"<>`)
    if (chance(0.05)) return `${word}.json`
    return word
  }

  function next(): RandomRequest {
    const segments = Array.from({ length: Math.floor(random() * 4) }, segment)
    let path = pick(prefixes) + segments.join('/')
    if (chance(0.5)) {
      const pairs = Array.from({ length: 1 + Math.floor(random() * 3) }, () => `${token()}=${token()}`)
      if (chance(0.3)) pairs.push(`url=%2F${token()}`, `w=${pick(['640', '16', token()])}`)
      path += `?${pairs.join('&')}`
    }
    const headers: Record<string, string> = {}
    for (const name of headerNames) if (chance(0.3)) headers[name] = token()
    const method = pick(methods)
    const request: RandomRequest = { method, path, headers }
    if (method === 'POST' || method === 'PUT' || method === 'PATCH') {
      request.body = chance(0.5)
        ? JSON.stringify({ source: token(), message: token(), url: `https://${token()}.example/` })
        : token()
      headers['content-type'] = pick(['application/json', 'text/plain', token()])
    }
    return request
  }

  return { next, tokens }
}

export interface SendResult {
  /** Answers by status. */
  statuses: Map<number, number>
  /** Requests that got no answer (a socket error). */
  failed: number
}

/** Sends `count` requests from `source` to `origin`, `concurrency` at a time over kept-alive connections. */
export async function sendRandomRequests(
  origin: string,
  source: RequestSource,
  count: number,
  concurrency = 16,
): Promise<SendResult> {
  const pool = new Pool(origin, { connections: concurrency, pipelining: 1 })
  const statuses = new Map<number, number>()
  let failed = 0
  let sent = 0
  async function worker() {
    while (sent < count) {
      sent += 1
      const { method, path, headers, body } = source.next()
      try {
        const response = await pool.request({ method, path, headers, ...(body === undefined ? {} : { body }) })
        await response.body.dump()
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1)
      } catch {
        failed += 1
      }
    }
  }
  try {
    await Promise.all(Array.from({ length: concurrency }, worker))
  } finally {
    await pool.close()
  }
  return { statuses, failed }
}
