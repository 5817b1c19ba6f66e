/**
 * pebble (Let's Encrypt's ACME test server, Debian's package) on loopback for a test, and a `certbot` to put first on
 * PATH: Debian's own, told where pebble is (`--server`, pebble's CA for renewals, folders of the test's own), so a
 * command written for Let's Encrypt runs unchanged against it (docs/running-at-scale.md "The production path: from a
 * fresh clone to HTTPS").
 */
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import https from 'node:https'
import path from 'node:path'
import { freePort, onFreePort } from '../helpers/free-port.ts'

/** Whether pebble answers its directory on `port` with the certificate it was given: this pebble, not a stranger. */
function answersDirectory(port: number, ca: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    const request = https.get(
      { host: '127.0.0.1', port, path: '/dir', ca, servername: 'localhost', timeout: 2000 },
      (response) => {
        response.resume()
        resolve(response.statusCode === 200)
      },
    )
    request.once('error', () => resolve(false))
    request.once('timeout', () => request.destroy())
  })
}

/** pebble with `configFile`, ready once its directory answers; fails, saying its output, when it exits first. */
async function runPebble(configFile: string, port: number, ca: Buffer): Promise<{ port: number; stop: () => void }> {
  // No sleep before validating, and no nonces refused at random (pebble's defaults test clients' retries).
  const pebble = spawn('pebble', ['-config', configFile, '-strict=false'], {
    env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  pebble.stdout.on('data', (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-4000)))
  pebble.stderr.on('data', (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-4000)))
  const closed = new Promise<void>((resolve) => pebble.once('close', () => resolve()))
  const stop = () => void pebble.kill('SIGTERM')
  const deadline = Date.now() + 30_000
  for (;;) {
    if (pebble.exitCode !== null) {
      await closed
      throw new Error(`pebble exited (${pebble.exitCode}):\n${output}`)
    }
    if (await answersDirectory(port, ca)) return { port, stop }
    if (Date.now() > deadline) {
      stop()
      throw new Error(`pebble did not answer within 30 s:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

export async function startPebble(
  work: string,
  options: {
    /** Where pebble asks for HTTP-01 challenges: nginx's plain port. */ validationPort: number
    certbotConfigDir: string
  },
): Promise<{ bin: string; stop: () => void }> {
  // A certificate of its own for its HTTPS API: the package ships none.
  const folder = path.join(work, 'pebble')
  mkdirSync(folder)
  const certificate = path.join(folder, 'cert.pem')
  const key = path.join(folder, 'key.pem')
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      certificate,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { encoding: 'utf8' },
  )
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`)
  // Its API on a free port, another when that one was taken in between (pebble exits saying `address already in
  // use`); no management interface (none without its address). tlsPort is where it would dial a TLS-ALPN challenge:
  // never bound, never dialled here.
  const tlsPort = await freePort()
  const { port, stop } = await onFreePort((api) => {
    const config = {
      pebble: {
        listenAddress: `127.0.0.1:${api}`,
        certificate,
        privateKey: key,
        httpPort: options.validationPort,
        tlsPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: false,
      },
    }
    writeFileSync(path.join(folder, 'pebble.json'), JSON.stringify(config))
    return runPebble(path.join(folder, 'pebble.json'), api, readFileSync(certificate))
  })

  const bin = path.join(work, 'bin')
  mkdirSync(bin)
  writeFileSync(
    path.join(bin, 'certbot'),
    [
      '#!/bin/sh',
      `export REQUESTS_CA_BUNDLE='${certificate}'`,
      `exec /usr/bin/certbot "$@" --server 'https://127.0.0.1:${port}/dir' --config-dir '${options.certbotConfigDir}'` +
        ` --work-dir '${path.join(work, 'certbot-work')}' --logs-dir '${path.join(work, 'certbot-logs')}' --no-random-sleep-on-renew`,
      '',
    ].join('\n'),
  )
  chmodSync(path.join(bin, 'certbot'), 0o755)
  return { bin, stop }
}
