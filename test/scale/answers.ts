/**
 * What a client sees of an answer, for comparing an answer through a proxy with the instance's own (the same
 * status, coding, decoded bytes and the headers a client or a cache acts on; per-request values left out). Used by
 * test/scale/https-front-door.test.ts over HTTP/2 and test/scale/nginx-parity.test.ts over HTTP/1.1.
 */
import { createHash } from 'node:crypto'
import http from 'node:http'
import http2 from 'node:http2'
import { brotliDecompressSync, gunzipSync, inflateSync, zstdDecompressSync, type BrotliOptions } from 'node:zlib'
import { deltaHeaderBytes, deltaMagic, type DictionaryCoding } from '../../src/compression/dictionaries.ts'

export interface RawAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  /** The bytes as they came on the wire (still coded). */
  wire: Buffer
}

/** One GET with node:http (fetch would decode the body and drop the coding); `origin` may be an instance's
 * `unix:<socket>` as nginx names it. */
export function getHttp1(
  origin: string,
  pathname: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<RawAnswer> {
  const target = origin.startsWith('unix:')
    ? { socketPath: origin.slice('unix:'.length), path: pathname, headers: { host: 'localhost', ...headers } }
    : { ...urlParts(new URL(`${origin}${pathname}`)), headers }
  return new Promise((resolve, reject) => {
    const request = http.request({ ...target, method, agent: false }, (response) => {
      const parts: Buffer[] = []
      response.on('data', (part: Buffer) => parts.push(part))
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, wire: Buffer.concat(parts) }),
      )
      response.on('error', reject)
    })
    request.on('error', reject)
    request.end()
  })
}

const urlParts = (url: URL) => ({ host: url.hostname, port: url.port, path: `${url.pathname}${url.search}` })

/** One GET on an HTTP/2 session. */
export function getHttp2(
  session: http2.ClientHttp2Session,
  pathname: string,
  headers: Record<string, string>,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': 'GET', ':path': pathname, ...headers })
    const parts: Buffer[] = []
    let status = 0
    let received: RawAnswer['headers'] = {}
    stream.on('response', (responseHeaders) => {
      status = Number(responseHeaders[':status'])
      received = Object.fromEntries(Object.entries(responseHeaders).filter(([name]) => !name.startsWith(':')))
    })
    stream.on('data', (part: Buffer) => parts.push(part))
    stream.on('end', () => resolve({ status, headers: received, wire: Buffer.concat(parts) }))
    stream.on('error', reject)
  })
}

/**
 * The decoded body. `dictionaries` (by hex SHA-256) are the ones a `dcb`/`dcz` answer may name: the chunks a client
 * offered as `Available-Dictionary`.
 */
export function decode(answer: RawAnswer, dictionaries: ReadonlyMap<string, Buffer> = new Map()): Buffer {
  switch (answer.headers['content-encoding']) {
    case 'dcb':
    case 'dcz': {
      const coding: DictionaryCoding = answer.headers['content-encoding']
      const magic = deltaMagic[coding]
      const dictionary = dictionaries.get(answer.wire.subarray(magic.length, deltaHeaderBytes(coding)).toString('hex'))
      if (!answer.wire.subarray(0, magic.length).equals(magic) || !dictionary)
        throw new Error(`a ${coding} answer names a dictionary the test did not offer`)
      const body = answer.wire.subarray(deltaHeaderBytes(coding))
      return coding === 'dcb'
        ? brotliDecompressSync(body, { dictionary } as BrotliOptions & { dictionary: Buffer })
        : zstdDecompressSync(body, { dictionary })
    }
    case undefined:
      return answer.wire
    case 'br':
      return brotliDecompressSync(answer.wire)
    case 'gzip':
      return gunzipSync(answer.wire)
    case 'deflate':
      return inflateSync(answer.wire)
    case 'zstd':
      return zstdDecompressSync(answer.wire)
    default:
      throw new Error(`unexpected content-encoding ${String(answer.headers['content-encoding'])}`)
  }
}

/** What must be equal through the proxy and directly; `other` is the answer it is compared with. */
export function view(answer: RawAnswer, other: RawAnswer, dictionaries?: ReadonlyMap<string, Buffer>) {
  let body = decode(answer, dictionaries)
  const nonce = /'nonce-([^']+)'/.exec(String(answer.headers['content-security-policy'] ?? ''))?.[1]
  if (nonce) body = Buffer.from(body.toString('latin1').replaceAll(nonce, '<nonce>'), 'latin1')
  const header = (name: string) => {
    const value = answer.headers[name]
    return Array.isArray(value) ? value.join(', ') : value
  }
  // A document coded per request carries its own nonce in the coded bytes: their length is a per-request value.
  const bothHaveLength = answer.headers['content-length'] !== undefined && other.headers['content-length'] !== undefined
  const lengthCompared = bothHaveLength && (nonce === undefined || answer.headers['content-encoding'] === undefined)
  return {
    status: answer.status,
    'content-encoding': header('content-encoding'),
    'content-type': header('content-type'),
    'cache-control': header('cache-control'),
    vary: header('vary'),
    'use-as-dictionary': header('use-as-dictionary'),
    etag: header('etag'),
    'last-modified': header('last-modified'),
    location: header('location'),
    'content-length': lengthCompared
      ? header('content-length')
      : bothHaveLength
        ? '(a coded document: per request)'
        : '(not compared: one side streams)',
    'content-security-policy': header('content-security-policy')?.replaceAll(nonce ?? '\0', '<nonce>'),
    'x-deployment-id': header('x-deployment-id'),
    decodedBytes: body.length,
    decodedSha256: createHash('sha256').update(body).digest('hex'),
  }
}

/** Every Accept-Encoding compared (`undefined`: none): what browsers send, q-values, `*`, zstd. */
export const acceptEncodings: Array<string | undefined> = [
  'br, gzip',
  'gzip',
  'br',
  'identity',
  undefined,
  'gzip;q=0, br',
  '*',
  'gzip;q=1, br;q=0.5',
  'gzip, deflate, br, zstd',
  'gzip, xbr, br',
  'zstd',
  'gzip, zstd',
  'br;q=0.5, zstd',
]
