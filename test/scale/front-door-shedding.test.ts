/**
 * What an anonymous client can hold at the front door (docs/running-at-scale.md "What one client can hold"): nginx
 * with deploy/nginx/ and TLS on, in front of a stand-in instance.
 * - A slowloris client holding 8,400 half-sent request headers on the plain port (each one it loses opened again)
 *   while HTTPS is asked on a new connection every 2 s for 20 s: every probe answered 200. Before the time-outs and
 *   the connection budget of nginx.conf, HTTPS failed from the 4th second (`4096 worker_connections are not enough`).
 * - The plain port redirects to the site's own name, never the request's Host, with Cache-Control; any other name
 *   gets nothing there, and nothing on HTTPS (the handshake or the request refused); certbot's challenges answer.
 */
import { spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:http'
import https from 'node:https'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import tls from 'node:tls'
import t from 'tap'
import { writePrefix } from '../../deploy/nginx-prefix.ts'
import { onFreePorts } from '../helpers/free-port.ts'
import { startNginx } from './processes.ts'

/** The number the security review held on the plain port (one client, one address). */
const heldHeaders = 8_400
const probeEveryMs = 2_000
const probes = 10

const prefix = await mkdtemp(path.join(tmpdir(), 'courier-front-door-'))
t.teardown(() => rm(prefix, { recursive: true, force: true }))
const certificate = path.join(prefix, 'cert.pem')
const key = path.join(prefix, 'key.pem')
const made = spawnSync(
  'openssl',
  [
    ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', certificate, '-days', '2'],
    ...['-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,DNS:www.localhost,IP:127.0.0.1'],
  ],
  { encoding: 'utf8' },
)
if (made.status !== 0) throw new Error(made.stderr)

// The stand-in instance: every request 200.
const instance = createServer(function answerOk(_request, response) {
  response.end('ok')
})
instance.listen(0, '127.0.0.1')
await once(instance, 'listening')
t.teardown(() => instance.close())
const instancePort = (instance.address() as net.AddressInfo).port

const { plainPort, httpsPort } = await onFreePorts(2, async ([plain, secure]) => {
  const { configFile } = await writePrefix({
    prefix,
    listen: `127.0.0.1:${plain}`,
    tls: { listen: `127.0.0.1:${secure}`, certificate, key },
    deployments: [{ id: 'a', servers: [`127.0.0.1:${instancePort}`] }],
  })
  await startNginx(t, prefix, configFile, secure!)
  return { plainPort: plain!, httpsPort: secure! }
})
const ca = await readFile(certificate)

/** GET `/` on a new HTTPS connection: its status, or the error's code (a refused handshake, a closed connection). */
function probeHttps(servername = 'localhost', host = `localhost:${httpsPort}`): Promise<number | string> {
  return new Promise((resolve) => {
    const request = https.get(
      {
        host: '127.0.0.1',
        port: httpsPort,
        path: '/',
        servername,
        ca,
        agent: false,
        headers: { host },
        timeout: 1_500,
      },
      (response) => {
        response.resume()
        response.once('end', () => resolve(response.statusCode ?? 0))
      },
    )
    request.once('timeout', () => request.destroy(Object.assign(new Error('timed out'), { code: 'TIMEOUT' })))
    request.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
  })
}

/** One raw HTTP/1.1 exchange on the plain port: the status and headers, or `closed` when nginx answers nothing. */
function askPlain(request: string): Promise<{ status: number; headers: Record<string, string> } | 'closed'> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(plainPort, '127.0.0.1', () => socket.write(request))
    let text = ''
    socket.setEncoding('latin1')
    socket.on('data', (part: string) => (text += part))
    // A connection nginx drops (`444`) is reset (reset_timedout_connection): nothing was answered either way.
    socket.once('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : reject(error)))
    socket.once('close', () => {
      if (text === '') return resolve('closed')
      const [statusLine = '', ...lines] = text.split('\r\n\r\n')[0]!.split('\r\n')
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      )
      resolve({ status: Number(statusLine.split(' ')[1]), headers })
    })
  })
}

interface Slowloris {
  /** How many half-sent headers it holds now. */
  held(): number
  stop(): void
}

/**
 * `count` connections to the plain port, each sending a request line and one header, then nothing: a header nginx
 * waits for. A connection nginx closes (its header time-out, or no room) is opened again after 50 ms, so the number
 * held stays as high as nginx lets it.
 */
async function startSlowloris(port: number, count: number): Promise<Slowloris> {
  const sockets = new Set<net.Socket>()
  let stopped = false
  function open(): Promise<void> {
    return new Promise((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write(`GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: `)
        resolve()
      })
      sockets.add(socket)
      socket.on('error', () => {})
      socket.once('close', () => {
        sockets.delete(socket)
        resolve()
        if (!stopped) setTimeout(open, 50)
      })
    })
  }
  for (let started = 0; started < count; started += 500) {
    await Promise.all(Array.from({ length: Math.min(500, count - started) }, open))
  }
  return {
    held: () => [...sockets].filter((socket) => !socket.connecting && !socket.destroyed).length,
    stop() {
      stopped = true
      for (const socket of sockets) socket.destroy()
    },
  }
}

t.test(`${heldHeaders} half-sent headers on the plain port: HTTPS still answers every probe`, async (t) => {
  t.equal(await probeHttps(), 200, 'HTTPS answers before')
  const slowloris = await startSlowloris(plainPort, heldHeaders)
  t.teardown(() => slowloris.stop())
  const seen: Array<{ second: number; held: number; answer: number | string }> = []
  const started = Date.now()
  for (let probe = 0; probe < probes; probe += 1) {
    await new Promise((resolve) => setTimeout(resolve, probeEveryMs))
    const answer = await probeHttps()
    seen.push({ second: Math.round((Date.now() - started) / 1000), held: slowloris.held(), answer })
  }
  slowloris.stop()
  t.comment(JSON.stringify(seen))
  t.ok(
    seen.some((probe) => probe.held >= heldHeaders * 0.95),
    'the slowloris held its headers (opened again as nginx closed them)',
  )
  t.same(
    seen.filter((probe) => probe.answer !== 200),
    [],
    'every HTTPS probe answered 200',
  )
  const alerts = (await readFile(path.join(prefix, 'logs', 'error.log'), 'utf8')).match(
    /worker_connections are not enough/g,
  )
  t.equal(alerts, null, 'nginx never ran out of connections')
})

t.test("the plain port redirects to the site's own name, never the request's Host, for an hour", async (t) => {
  for (const [method, status] of [
    ['GET', 301],
    ['HEAD', 301],
    ['POST', 308],
  ] as const) {
    for (const host of ['localhost', `www.localhost:${plainPort}`]) {
      const answer = await askPlain(`${method} /a%20b?x=1 HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)
      t.same(
        answer === 'closed' ? answer : [answer.status, answer.headers.location, answer.headers['cache-control']],
        [status, `https://localhost:${httpsPort}/a%20b?x=1`, 'max-age=3600'],
        `${method} for ${host}: ${status} to the site's origin, cached an hour`,
      )
    }
  }
  for (const request of [
    'GET / HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n',
    `GET / HTTP/1.1\r\nHost: 127.0.0.1:${plainPort}\r\nConnection: close\r\n\r\n`,
    // The request line's host wins over the header (RFC 9112): still not the site's.
    'GET http://evil.example/ HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    'GET / HTTP/1.0\r\n\r\n',
  ]) {
    t.equal(
      await askPlain(request),
      'closed',
      `${JSON.stringify(request.split('\r\n').slice(0, 2).join(' '))}: nothing, no Location`,
    )
  }
})

t.test("certbot's challenges answer on the plain port, for the site's name and one being added", async (t) => {
  const challenges = path.join(prefix, '..', 'acme', '.well-known', 'acme-challenge')
  await mkdir(challenges, { recursive: true })
  t.teardown(() => rm(path.join(prefix, '..', 'acme'), { recursive: true, force: true }))
  await writeFile(path.join(challenges, 'token-1'), 'token-1.thumbprint')
  for (const host of ['localhost', 'new-name.example']) {
    const answer = await askPlain(
      `GET /.well-known/acme-challenge/token-1 HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
    )
    t.equal(answer === 'closed' ? answer : answer.status, 200, `${host}: the challenge file`)
  }
})

t.test('HTTPS serves the site under its names only', async (t) => {
  t.equal(await probeHttps('www.localhost', `www.localhost:${httpsPort}`), 200, "another of the certificate's names")
  const refused = await probeHttps('evil.example', `evil.example:${httpsPort}`)
  t.not(refused, 200, 'an unknown SNI: no site')
  t.match(String(refused), /ECONNRESET|ERR_SSL|EPROTO/, `the handshake refused (${refused})`)
  const noName = await new Promise<string>((resolve) => {
    // An address, as typed by hand: no SNI at all.
    const socket = tls.connect({ host: '127.0.0.1', port: httpsPort, ca }, () => resolve('connected'))
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
  })
  t.match(noName, /ERR_SSL|EPROTO|ECONNRESET/, `no SNI: the handshake refused (${noName})`)
  t.match(
    String(await probeHttps('localhost', 'evil.example')),
    /ECONNRESET|socket hang up/,
    "the site's SNI but another Host: the connection closed unanswered",
  )
})
