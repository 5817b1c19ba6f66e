/**
 * The suite's own loopback proxy, between every engine and the test server. It does for all three engines what only
 * some of their drivers can do themselves: it records every request that reaches the network (with the engine's own
 * `Sec-Fetch-Dest` and `Accept`), answers or delays chosen requests (a 5xx, a 409, data that never comes), and puts
 * a script of the suite's at the top of every HTML document for engines whose driver has no init scripts (WebKit
 * over classic WebDriver). Nothing else is changed: bodies stream through as the server sends them.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export interface ProxiedRequest {
  /** As the browser asked for it, on the proxy's origin. */
  url: string
  method: string
  /** The engine's `Sec-Fetch-Dest`: `document`, `script`, `style`, `font`, `image`, `empty` (fetch, beacon), ... */
  dest: string
  accept: string
  userAgent: string
  /** Request headers as sent by the browser. */
  headers: IncomingHttpHeaders
  /** The Accept-Encoding the server got (a rule's, none for a document the proxy changes, else the browser's). */
  forwardedAcceptEncoding?: string | undefined
  /** Set once answered: by the server, or by a rule. */
  status?: number
  responseHeaders?: IncomingHttpHeaders
  /** Set when the browser went away before the answer was complete. */
  aborted?: boolean
}

export type RuleAnswer =
  /** Answer this instead of the server. */
  | { respond: { status: number; headers?: Record<string, string>; body?: string } }
  /** Wait, then pass the request to the server (the browser may have given up by then). */
  | { delayMs: number }
  /** Pass the request to the server, and change the HTML it answers (`nonce`: the answer's CSP nonce, if any). */
  | { transformHtml: (html: string, nonce: string | undefined) => string }
  /**
   * Pass the request to the server with this Accept-Encoding in place of the browser's (one the browser named, so it
   * decodes the answer itself): a coding the server would not choose for the browser's own header.
   */
  | { acceptEncoding: string }
  /** Pass the request to the server as it is. */
  | 'pass'

export interface Rule {
  /** Whether the rule takes this request (pathname and query, as the browser sent them). */
  matches(pathAndQuery: string): boolean
  /** `attempt`: 1 for the first matching request, then 2, ... */
  answer(attempt: number): RuleAnswer
}

export interface LoopbackProxy {
  /** `http://127.0.0.1:<port>`: the origin every engine is pointed at. */
  origin: string
  requests: ProxiedRequest[]
  /** Adds a rule; the first matching rule answers. */
  route(rule: Rule): void
  /**
   * Passes later requests to another server (`http://127.0.0.1:<port>`): a new deployment behind the same origin,
   * as a returning visitor's browser meets it (the same cache, the same compression dictionaries).
   */
  retarget(target: string): void
  /** Script source put first in the `<head>` of every HTML document, with the document's CSP nonce. */
  injectIntoDocuments(source: string): void
  /**
   * Starts a new session: waits (bounded) until the last session's traffic has ended, closes its connections, and
   * forgets its requests, rules and scripts. A request still sent on one of those connections is passed on but not
   * recorded, so a closed tab's late prefetch never shows up in the next session's record. Nor does one on a new
   * connection before the session's first document: a new tab asks for nothing before it navigates, and a closed
   * tab's prefetch can still come after the quiet wait (Firefox, on a loaded machine).
   */
  reset(): Promise<void>
  close(): Promise<void>
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** How long no request must arrive before a session's traffic counts as ended. */
const quietMs = 250

function nonceOf(headers: IncomingHttpHeaders): string | undefined {
  return /'nonce-([^']+)'/.exec(String(headers['content-security-policy'] ?? ''))?.[1]
}

export async function startProxy(target: string): Promise<LoopbackProxy> {
  let upstream = new URL(target)
  const agent = new http.Agent({ keepAlive: true })
  let requests: ProxiedRequest[] = []
  let rules: Array<{ rule: Rule; attempts: number }> = []
  let injected: string[] = []
  const sockets = new Set<Socket>()
  /** Bumped by every reset; a connection belongs to the session it was opened in. */
  let session = 0
  const sessionOf = new WeakMap<Socket, number>()
  /** Whether this session has asked for a document: its record starts there. */
  let documentAsked = false
  let inFlight = 0
  let lastArrival = 0

  function scriptTags(scripts: string[], nonce: string | undefined): string {
    return scripts.map((source) => `<script${nonce ? ` nonce="${nonce}"` : ''}>${source}</script>`).join('')
  }

  function pipeHtmlWithScripts(answer: IncomingMessage, reply: ServerResponse, scripts: string[]) {
    const tags = scriptTags(scripts, nonceOf(answer.headers))
    const headers = { ...answer.headers }
    delete headers['content-length']
    reply.writeHead(answer.statusCode ?? 502, headers)
    let head = ''
    let done = false
    answer.setEncoding('utf8')
    answer.on('data', (chunk: string) => {
      if (done) return void reply.write(chunk)
      head += chunk
      const at = head.indexOf('<head>')
      // The first chunk holds the shell's start: the scripts go before anything of the page's runs.
      if (at === -1 && head.length < 4096) return
      const cut = at === -1 ? 0 : at + '<head>'.length
      reply.write(head.slice(0, cut) + tags + head.slice(cut))
      done = true
    })
    answer.on('end', () => reply.end(done ? undefined : head))
    answer.on('error', () => reply.destroy())
  }

  async function forward(request: IncomingMessage, reply: ServerResponse) {
    const pathAndQuery = request.url ?? '/'
    const entry: ProxiedRequest = {
      url: new URL(pathAndQuery, proxy.origin).href,
      method: request.method ?? 'GET',
      dest: String(request.headers['sec-fetch-dest'] ?? ''),
      accept: String(request.headers.accept ?? ''),
      userAgent: String(request.headers['user-agent'] ?? ''),
      headers: request.headers,
    }
    lastArrival = Date.now()
    inFlight += 1
    if (sessionOf.get(request.socket) === session) {
      if (entry.dest === 'document') documentAsked = true
      if (documentAsked) requests.push(entry)
    }
    reply.on('close', () => {
      inFlight -= 1
      if (!reply.writableFinished) entry.aborted = true
    })
    const matched = rules.find(({ rule }) => rule.matches(pathAndQuery))
    let transformHtml: ((html: string, nonce: string | undefined) => string) | undefined
    let acceptEncoding: string | undefined
    if (matched) {
      matched.attempts += 1
      const answer = matched.rule.answer(matched.attempts)
      if (answer !== 'pass' && 'transformHtml' in answer) transformHtml = answer.transformHtml
      else if (answer !== 'pass' && 'acceptEncoding' in answer) acceptEncoding = answer.acceptEncoding
      else if (answer !== 'pass' && 'respond' in answer) {
        const { status, headers = {}, body = '' } = answer.respond
        entry.status = status
        entry.responseHeaders = headers
        reply.writeHead(status, { 'content-length': Buffer.byteLength(body), ...headers })
        reply.end(body)
        return
      } else if (answer !== 'pass') await sleep(answer.delayMs)
      if (reply.destroyed) return
    }
    const isDocument = entry.dest === 'document' || entry.dest === 'iframe'
    const headers = { ...request.headers, host: request.headers.host ?? upstream.host }
    if (acceptEncoding !== undefined) headers['accept-encoding'] = acceptEncoding
    // An HTML document that gets a script or a change must come as text, not compressed.
    if ((isDocument && injected.length > 0) || transformHtml) delete headers['accept-encoding']
    entry.forwardedAcceptEncoding = headers['accept-encoding']
    const scripts = injected
    // A kept-alive socket the server closed while idle fails the request sent on it (ECONNRESET, no byte of an
    // answer): a GET or HEAD goes again once on a fresh socket, as Node's docs advise and nginx does, instead of
    // answering the browser 502 for a race of the proxy's own.
    const idempotent = request.method === 'GET' || request.method === 'HEAD'
    let outbound: http.ClientRequest
    const send = (retried: boolean) => {
      const current = http.request(
        { host: upstream.hostname, port: upstream.port, method: request.method, path: pathAndQuery, headers, agent },
        (answer) => {
          entry.status = answer.statusCode
          entry.responseHeaders = answer.headers
          const html = String(answer.headers['content-type'] ?? '').startsWith('text/html')
          if (transformHtml && html) {
            const change = transformHtml
            const chunks: Buffer[] = []
            answer.on('data', (chunk: Buffer) => chunks.push(chunk))
            answer.on('end', () => {
              const nonce = nonceOf(answer.headers)
              let body = change(Buffer.concat(chunks).toString('utf8'), nonce)
              if (isDocument && scripts.length > 0) body = body.replace('<head>', `<head>${scriptTags(scripts, nonce)}`)
              const headers = { ...answer.headers, 'content-length': String(Buffer.byteLength(body)) }
              reply.writeHead(answer.statusCode ?? 502, headers)
              reply.end(body)
            })
            answer.on('error', () => reply.destroy())
            return
          }
          if (isDocument && html && scripts.length > 0 && request.method !== 'HEAD') {
            pipeHtmlWithScripts(answer, reply, scripts)
            return
          }
          reply.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(reply)
        },
      )
      outbound = current
      current.on('error', () => {
        if (!retried && idempotent && current.reusedSocket && !reply.headersSent && !reply.destroyed) return send(true)
        if (!reply.headersSent) reply.writeHead(502).end()
        else reply.destroy()
      })
      if (idempotent) current.end()
      else request.pipe(current)
    }
    send(false)
    // The browser went away before the answer was through: so does the request upstream (a finished one keeps its
    // keep-alive socket, which may already serve another request).
    reply.on('close', () => {
      if (!reply.writableFinished) outbound.destroy()
    })
  }

  const server = http.createServer((request, reply) => {
    forward(request, reply).catch(() => reply.destroy())
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    sessionOf.set(socket, session)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  const proxy: LoopbackProxy = {
    origin: `http://127.0.0.1:${port}`,
    get requests() {
      return requests
    },
    route(rule) {
      rules.push({ rule, attempts: 0 })
    },
    retarget(next) {
      upstream = new URL(next)
    },
    injectIntoDocuments(source) {
      injected = [...injected, source]
    },
    async reset() {
      const end = Date.now() + 3_000
      while (Date.now() < end && (inFlight > 0 || Date.now() - lastArrival < quietMs)) await sleep(25)
      session += 1
      documentAsked = false
      for (const socket of sockets) socket.destroy()
      requests = []
      rules = []
      injected = []
    },
    close() {
      agent.destroy()
      for (const socket of sockets) socket.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
  return proxy
}
