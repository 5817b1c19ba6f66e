/**
 * HTTPS at the front door (docs/running-at-scale.md "HTTPS"): the test build deployed by `deploy/rolling-deploy.ts`
 * with `--https-listen`, `--tls-cert` and `--tls-key` (a self-signed certificate), Redis and nginx real.
 * - Every kind of answer through HTTPS over HTTP/2 equals the instance's own, asked as nginx asks it
 *   (`X-Forwarded-Proto: https` from the trusted address), for every Accept-Encoding; each HTTPS answer carries
 *   Strict-Transport-Security, which nginx adds (the instance sends none).
 * - The plain port: `301` (GET, HEAD) or `308` (other methods) to the same path and query at the site's HTTPS origin
 *   (SITE_URL), cached an hour, except certbot's challenges, served from `<state>/acme`; no HSTS there. Other names
 *   and the slowloris: front-door-shedding.test.ts.
 * - TLS 1.2 and 1.3 only, resumption of both, SITE_URL the HTTPS origin, and `--reload` serving a new certificate.
 */
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { once } from 'node:events'
import http2 from 'node:http2'
import path from 'node:path'
import tls from 'node:tls'
import { X509Certificate } from 'node:crypto'
import t from 'tap'
import { defaultDistDir } from '../../config/env.ts'
import { projectRoot } from '../reliability/server-process.ts'
import { acceptEncodings, getHttp1, getHttp2, view } from './answers.ts'
import { firstDeploy, makeCertificate, readDeployState, runDeploy, stateFolder } from './deploy-run.ts'
import { startRedis } from './processes.ts'
import { publicImagePath } from '../helpers/site-pages.ts'

const redis = await startRedis(t)
const distDir = path.join(projectRoot, defaultDistDir(true))
const { deploymentId } = JSON.parse(await readFile(path.join(distDir, 'deployment.json'), 'utf8')) as {
  deploymentId: string
}
const state = await stateFolder(t, { REDIS_URL: redis.url, COURIER_TEST_ROUTES: 'true', LOG_LEVEL: 'warn' })
// The files certbot would leave: the deploy is given these paths, and `--reload` re-reads whatever they hold.
const first = makeCertificate(state, 'first')
const second = makeCertificate(state, 'second', '/CN=renewed')
const live = { certificate: path.join(state, 'fullchain.pem'), key: path.join(state, 'privkey.pem') }
await copyFile(first.certificate, live.certificate)
await copyFile(first.key, live.key)
const { ports, run: deployed } = await firstDeploy(2, ([plain, https]) => [
  '--state',
  state,
  '--dist',
  distDir,
  '--listen',
  `127.0.0.1:${plain}`,
  '--https-listen',
  `127.0.0.1:${https}`,
  '--tls-cert',
  live.certificate,
  '--tls-key',
  live.key,
  '--instances',
  '1',
])
if (deployed.code !== 0) throw new Error(`the deploy failed:\n${deployed.output}`)
const [plainPort, httpsPort] = [ports[0]!, ports[1]!]
const instance = `unix:${(await readDeployState(state)).deployments[0]!.instances[0]!.socket}`
const ca = await readFile(first.certificate)

// The site's name, as a browser sends it (nginx serves no other): the connection to its address.
const session = http2.connect(`https://localhost:${httpsPort}`, {
  ca,
  servername: 'localhost',
  createConnection: () =>
    tls.connect({ host: '127.0.0.1', port: httpsPort, ca, servername: 'localhost', ALPNProtocols: ['h2'] }),
})
t.teardown(() => session.close())
// What nginx adds for the instances (courier.conf): the instance trusts its one peer, nginx (TRUST_PROXY=1).
const asNginxAsks = {
  'x-forwarded-proto': 'https',
  'x-forwarded-host': 'localhost',
  'x-forwarded-port': String(httpsPort),
  'x-forwarded-for': '127.0.0.1',
}

const kinds: Array<{ kind: string; path: string; headers?: Record<string, string> }> = [
  { kind: 'a kept static document', path: '/' },
  { kind: 'a streamed dynamic document', path: '/__test/slow?delay=50' },
  { kind: 'page data', path: `/_next/data/${deploymentId}/index.json`, headers: { 'x-deployment-id': deploymentId } },
  { kind: 'sitemap.xml', path: '/sitemap.xml' },
  { kind: 'robots.txt', path: '/robots.txt' },
  {
    kind: 'an optimized image',
    path: `/_next/image?url=${encodeURIComponent(publicImagePath())}&w=640&q=75`,
    headers: { accept: 'image/avif,image/webp,*/*' },
  },
  { kind: 'a public image', path: publicImagePath() },
  { kind: 'the 404 document', path: '/no-such-page' },
  { kind: 'an /api JSON answer', path: '/api/image-widths' },
]
const builtFiles = await readdir(path.join(distDir, 'client', 'chunks'))
for (const [kind, name] of [
  ['the stylesheet', builtFiles.find((file) => file.endsWith('.css'))],
  ['a font', builtFiles.find((file) => file.endsWith('.woff2'))],
  ['a JavaScript chunk', builtFiles.find((file) => /^index-.*\.js$/.test(file))],
] as const) {
  if (!name) throw new Error(`the test build has no ${kind}`)
  kinds.push({ kind, path: `/_next/static/chunks/${name}?dpl=${deploymentId}` })
}

t.test('HTTP/2 is negotiated', async (t) => {
  if (session.connecting) await once(session, 'connect')
  t.equal(session.alpnProtocol, 'h2')
})

for (const { kind, path: requestPath, headers = {} } of kinds) {
  t.test(`through HTTPS as from the instance: ${kind}`, async (t) => {
    for (const acceptEncoding of acceptEncodings) {
      const sent = acceptEncoding === undefined ? headers : { ...headers, 'accept-encoding': acceptEncoding }
      const direct = await getHttp1(instance, requestPath, { ...sent, ...asNginxAsks })
      const proxied = await getHttp2(session, requestPath, sent)
      const label = `Accept-Encoding ${acceptEncoding === undefined ? '(none)' : `"${acceptEncoding}"`}`
      t.same(view(proxied, direct), view(direct, proxied), label)
      t.equal(proxied.headers['strict-transport-security'], 'max-age=63072000', `${label}: HSTS through HTTPS`)
      t.equal(
        direct.headers['strict-transport-security'],
        undefined,
        `${label}: none from the instance (nginx adds it)`,
      )
    }
  })
}

t.test('the plain port redirects to HTTPS, except certbot challenges', async (t) => {
  const plain = `http://127.0.0.1:${plainPort}`
  for (const [method, status] of [
    ['GET', 301],
    ['HEAD', 301],
    ['POST', 308],
    ['PUT', 308],
    ['DELETE', 308],
  ] as const) {
    const answer = await getHttp1(plain, '/some/a%20b?x=1&y=2', { host: 'localhost' }, method)
    t.equal(answer.status, status, `${method}: ${status}`)
    t.equal(
      answer.headers.location,
      `https://localhost:${httpsPort}/some/a%20b?x=1&y=2`,
      `${method}: the same path and query on the site's HTTPS origin`,
    )
    t.equal(answer.headers['cache-control'], 'max-age=3600', `${method}: cached an hour`)
    t.equal(answer.headers['strict-transport-security'], undefined, `${method}: no HSTS over plain HTTP`)
  }
  const challenges = path.join(state, 'acme', '.well-known', 'acme-challenge')
  await mkdir(challenges, { recursive: true })
  await writeFile(path.join(challenges, 'token-123'), 'token-123.thumbprint')
  const challenge = await getHttp1(plain, '/.well-known/acme-challenge/token-123', { host: 'localhost' })
  t.equal(challenge.status, 200, 'a challenge file: served')
  t.equal(challenge.wire.toString(), 'token-123.thumbprint')
  t.equal(
    (await getHttp1(plain, '/.well-known/acme-challenge/missing', { host: 'localhost' })).status,
    404,
    'a missing one: 404, not a redirect',
  )
})

function handshake(
  options: tls.ConnectionOptions,
): Promise<{ protocol: string | null; reused: boolean; session?: Buffer; certificate: string }> {
  return new Promise((resolve, reject) => {
    let session: Buffer | undefined
    const socket = tls.connect({
      host: '127.0.0.1',
      port: httpsPort,
      servername: 'localhost',
      rejectUnauthorized: false,
      ...options,
    })
    socket.on('session', (ticket: Buffer) => (session = ticket))
    socket.once('secureConnect', () => {
      const result = {
        protocol: socket.getProtocol(),
        reused: socket.isSessionReused(),
        certificate: socket.getPeerX509Certificate()?.fingerprint256 ?? '',
      }
      // TLS 1.3 sends its session after the handshake: wait for it before closing.
      setTimeout(() => {
        socket.end()
        resolve({ ...result, session })
      }, 200)
    })
    socket.once('error', reject)
  })
}

t.test('TLS 1.2 and 1.3 only, each resumed', async (t) => {
  await t.rejects(handshake({ maxVersion: 'TLSv1.1', minVersion: 'TLSv1' }), 'TLS 1.1 refused')
  for (const version of ['TLSv1.2', 'TLSv1.3'] as const) {
    const first = await handshake({ minVersion: version, maxVersion: version })
    t.equal(first.protocol, version)
    t.ok(first.session, `${version}: a session to resume`)
    const again = await handshake({ minVersion: version, maxVersion: version, session: first.session })
    t.ok(again.reused, `${version}: the session resumed`)
  }
})

t.test('SITE_URL is the HTTPS origin: the certificate host and port', async (t) => {
  const robots = await getHttp2(session, '/robots.txt', {})
  t.match(robots.wire.toString(), `Sitemap: https://localhost:${httpsPort}/sitemap.xml`)
})

t.test('--reload serves the renewed certificate without a new deploy', async (t) => {
  const fingerprint = (file: string) => readFile(file).then((pem) => new X509Certificate(pem).fingerprint256)
  t.equal((await handshake({})).certificate, await fingerprint(first.certificate), 'the first certificate')
  await copyFile(second.certificate, live.certificate)
  await copyFile(second.key, live.key)
  const reloaded = await runDeploy(['--reload', '--state', state])
  t.equal(reloaded.code, 0, reloaded.output)
  // nginx's old workers may finish a handshake or two; a new connection meets the new configuration.
  let served = ''
  for (let attempt = 0; attempt < 50 && served !== (await fingerprint(second.certificate)); attempt += 1) {
    served = (await handshake({})).certificate
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.equal(served, await fingerprint(second.certificate), 'the renewed certificate')
  await copyFile(first.certificate, live.key.replace('privkey', 'mismatch'))
  await copyFile(first.key, live.key)
  const mismatched = await runDeploy(['--reload', '--state', state])
  t.equal(mismatched.code, 1, 'a key that does not belong to the certificate: refused')
  t.match(mismatched.lines.at(-1)?.error, /does not belong to the certificate/)
  t.equal(
    (await handshake({})).certificate,
    await fingerprint(second.certificate),
    'and the certificate served is still the last good one',
  )
})
