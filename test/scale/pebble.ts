/**
 * pebble (Let's Encrypt's ACME test server, Debian's package) on loopback for a test, and a `certbot` to put first on
 * PATH: Debian's own, told where pebble is (`--server`, pebble's CA for renewals, folders of the test's own), so a
 * command written for Let's Encrypt runs unchanged against it (docs/running-at-scale.md "The production path: from a
 * fresh clone to HTTPS").
 */
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { freePort } from '../helpers/free-port.ts'

export async function startPebble(
  work: string,
  options: { /** Where pebble asks for HTTP-01 challenges: nginx's plain port. */ validationPort: number; certbotConfigDir: string },
): Promise<{ bin: string; stop: () => void }> {
  // A certificate of its own for its HTTPS API: the package ships none.
  const folder = path.join(work, 'pebble')
  mkdirSync(folder)
  const certificate = path.join(folder, 'cert.pem')
  const key = path.join(folder, 'key.pem')
  const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', certificate, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'], { encoding: 'utf8' })
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`)
  const port = await freePort()
  const config = {
    pebble: {
      listenAddress: `127.0.0.1:${port}`,
      managementListenAddress: `127.0.0.1:${await freePort()}`,
      certificate,
      privateKey: key,
      httpPort: options.validationPort,
      tlsPort: await freePort(),
      ocspResponderURL: '',
      externalAccountBindingRequired: false,
    },
  }
  writeFileSync(path.join(folder, 'pebble.json'), JSON.stringify(config))
  // No sleep before validating, and no nonces refused at random (pebble's defaults test clients' retries).
  const pebble = spawn('pebble', ['-config', path.join(folder, 'pebble.json'), '-strict=false'], {
    env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0' },
    stdio: 'ignore',
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
  return { bin, stop: () => void pebble.kill('SIGTERM') }
}
