import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import net from 'node:net'

/** What came back on one raw connection: the first response, parsed, and how the connection ended. */
export interface RawReply {
  /** 0 when the server sent nothing before the connection ended. */
  status: number
  /** Header names in lower case; repeated ones joined with ", ". */
  headers: Record<string, string>
  /** The body, de-chunked when it came chunked. */
  body: string
  /** Every byte received, as latin1 text. */
  raw: string
  /** The server closed (or reset) the connection; false when the client gave up waiting. */
  closedByServer: boolean
  /** Milliseconds from the first byte written to the end of the connection. */
  ms: number
  /** Milliseconds from the first byte written to the first byte received (0 when nothing came). */
  firstByteMs: number
}

export interface RawOptions {
  /** The client gives up (and reports `closedByServer: false`) after this long. Default 10 s. */
  timeoutMs?: number
}

function parseHeaders(head: string): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':')
    if (colon <= 0) continue
    const name = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value
  }
  return headers
}

function dechunk(text: string): string {
  let body = ''
  let at = 0
  while (at < text.length) {
    const lineEnd = text.indexOf('\r\n', at)
    if (lineEnd === -1) break
    const size = Number.parseInt(text.slice(at, lineEnd), 16)
    if (!Number.isFinite(size) || size === 0) break
    body += text.slice(lineEnd + 2, lineEnd + 2 + size)
    at = lineEnd + 2 + size + 2
  }
  return body
}

/** Splits the bytes of one response (the first, if the server sent several) into status, headers and body. */
export function parseRawReply(raw: string): Pick<RawReply, 'status' | 'headers' | 'body'> {
  // Interim responses (100 Continue) come first when the request asked for them.
  while (/^HTTP\/1\.[01] 1\d\d /.test(raw) && raw.includes('\r\n\r\n')) raw = raw.slice(raw.indexOf('\r\n\r\n') + 4)
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(raw)?.[1] ?? 0)
  const headEnd = raw.indexOf('\r\n\r\n')
  if (headEnd === -1) return { status, headers: {}, body: '' }
  const headers = parseHeaders(raw.slice(0, headEnd))
  const rest = raw.slice(headEnd + 4)
  const body = /chunked/i.test(headers['transfer-encoding'] ?? '')
    ? dechunk(rest)
    : rest.slice(0, headers['content-length'] === undefined ? undefined : Number(headers['content-length']))
  return { status, headers, body: decoded(Buffer.from(body, 'latin1'), headers['content-encoding']).toString('utf8') }
}

/**
 * The body as a client reads it: decompressed when the answer says it is (the request asked for a coding). A body cut
 * short (a HEAD, a connection closed mid-way) stays as it came.
 */
function decoded(bytes: Buffer, coding: string | undefined): Buffer {
  if (bytes.length === 0 || (coding !== 'gzip' && coding !== 'br')) return bytes
  try {
    return coding === 'gzip' ? gunzipSync(bytes) : brotliDecompressSync(bytes)
  } catch {
    return bytes
  }
}

/**
 * Writes `request` to a fresh connection exactly as given (no client normalises anything) and reads until the server
 * closes it. Send `Connection: close` (or a request Node rejects) unless the test wants the time-out.
 */
export function rawRequest(origin: string, request: string | Buffer, options: RawOptions = {}): Promise<RawReply> {
  const { timeoutMs = 10_000 } = options
  const { hostname, port } = new URL(origin)
  return new Promise((resolve) => {
    const started = performance.now()
    const received: Buffer[] = []
    let closedByServer = true
    const socket = net.connect(Number(port), hostname, () => socket.write(request))
    const timer = setTimeout(() => {
      closedByServer = false
      socket.destroy()
    }, timeoutMs)
    let firstByteMs = 0
    socket.on('data', (data: Buffer) => {
      firstByteMs ||= performance.now() - started
      received.push(data)
    })
    // A reset after the response is still the server's close; the caller judges what was received.
    socket.on('error', () => {})
    socket.on('close', () => {
      clearTimeout(timer)
      const raw = Buffer.concat(received).toString('latin1')
      resolve({ ...parseRawReply(raw), raw, closedByServer, ms: performance.now() - started, firstByteMs })
    })
  })
}

/** A GET of `target` exactly as written, with `Connection: close` and any extra header lines. */
export function rawGet(origin: string, target: string, headerLines: string[] = [], options: RawOptions = {}) {
  const head = [`GET ${target} HTTP/1.1`, 'Host: courier.test', ...headerLines, 'Connection: close']
  return rawRequest(origin, `${head.join('\r\n')}\r\n\r\n`, options)
}
