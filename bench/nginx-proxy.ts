/**
 * nginx with the repository's own configuration (deploy/nginx/) in front of a Courier server the bench started, as
 * docs/running-at-scale.md deploys it: a prefix folder of its own, the build's assets published into its shared
 * folder, every request routed to that one server. For `npm run lighthouse` with `LIGHTHOUSE_THROUGH_NGINX=true`
 * (or `https`).
 */
import { spawn, spawnSync } from 'node:child_process'
import { createHash, X509Certificate } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { writePrefix } from '../deploy/nginx-prefix.ts'
import { publishAssets } from '../deploy/shared-assets.ts'
import { host, processLimits } from './config.ts'
import { findFreePort, probe, trackChild } from './processes.ts'

export interface NginxProxy {
  origin: string
  port: number
  stop(): Promise<void>
}

/**
 * Starts nginx in the foreground (tracked like the servers), ready once its own health path answers. With `https`,
 * it serves the site over HTTPS and HTTP/2 (deploy/nginx/tls.conf) with a self-signed certificate for `localhost`
 * made here, and the origin is `https://localhost:<port>`; `spki` is the certificate key's hash for Chromium's
 * `--ignore-certificate-errors-spki-list` (the origin is then a secure one, its HTTP cache on).
 */
export async function startNginxProxy(options: {
  distDir: string
  deploymentId: string
  upstreamPort: number
  https?: boolean
}): Promise<NginxProxy & { spki?: string }> {
  const prefix = await mkdtemp(path.join(tmpdir(), 'courier-bench-nginx-'))
  const port = await findFreePort()
  const httpsPort = options.https ? await findFreePort() : undefined
  const certificate = options.https ? makeCertificate(prefix) : undefined
  const { configFile } = await writePrefix({
    prefix,
    listen: `${host}:${port}`,
    tls: certificate && { listen: `${host}:${httpsPort}`, ...certificate },
    deployments: [{ id: options.deploymentId, servers: [`${host}:${options.upstreamPort}`] }],
  })
  await publishAssets(options.distDir, path.join(prefix, 'assets'), options.deploymentId)
  // With TLS the plain port redirects the site's names (all but certbot's challenges): a 301 there says nginx is up.
  const proxy = await runNginx(prefix, configFile, port, certificate ? 301 : 200, certificate ? 'localhost' : host)
  if (!certificate) return proxy
  return { ...proxy, origin: `https://localhost:${httpsPort}`, port: httpsPort!, spki: spkiOf(certificate.certificate) }
}

/** The SHA-256 of a certificate's public key, base64: what Chromium's `--ignore-certificate-errors-spki-list` takes. */
export function spkiOf(certificateFile: string): string {
  const publicKey = new X509Certificate(readFileSync(certificateFile)).publicKey
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64')
}

/** A self-signed certificate for `localhost` and 127.0.0.1 in `folder`, by Debian's openssl. */
export function makeCertificate(folder: string): { certificate: string; key: string } {
  const certificate = path.join(folder, 'localhost.pem')
  const key = path.join(folder, 'localhost.key')
  const made = spawnSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', certificate, '-days', '2'],
      ...['-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'],
    ],
    { encoding: 'utf8' },
  )
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`)
  return { certificate, key }
}

/**
 * Runs nginx in the foreground with `configFile` (tracked like the servers), ready once its `/nginx-health` answers
 * `healthStatus`; `stop` lets it finish what is in flight and removes the prefix folder.
 */
export async function runNginx(
  prefix: string,
  configFile: string,
  port: number,
  healthStatus = 200,
  /** The name asked for: with TLS nginx answers the certificate's names only (`localhost` here). */
  healthHost = host,
): Promise<NginxProxy> {
  let output = ''
  const child = spawn('nginx', ['-p', prefix, '-c', configFile, '-g', 'daemon off;'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  async function stop() {
    // SIGQUIT: nginx finishes what is in flight, then exits.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGQUIT')
    await gone
    await rm(prefix, { recursive: true, force: true })
  }
  trackChild(child, stop)
  const origin = `http://${host}:${port}`
  const deadline = Date.now() + processLimits.startUpMs
  while (
    (await probe(`http://${healthHost}:${port}/nginx-health`, processLimits.probeTimeoutMs).catch(() => 0)) !==
    healthStatus
  ) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}):\n${output}`)
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`nginx did not answer on ${port}:\n${output}`)
    }
    await sleep(processLimits.probeIntervalMs)
  }
  return { origin, port, stop }
}
