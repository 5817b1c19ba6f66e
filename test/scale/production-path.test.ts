/**
 * docs/running-at-scale.md "The production path: from a fresh clone to HTTPS", followed literally: every
 * `sh step=<name>` block of the doc is run with bash, in order, on a fresh clone (a bare copy of this repository as
 * the remote, so `git pull` has a remote), with the state folder outside the clone, real nginx and redis-server, and
 * certbot against pebble (Let's Encrypt's ACME test server, Debian's package) on loopback. The test sets the doc's
 * variables to loopback ports and folders of its own, and puts a `certbot` first on PATH that adds what pointing
 * certbot at pebble takes (`--server`, its CA, folders of the test's own); nothing else of the commands changes. After
 * each step it checks what a user would: the site over HTTPS and HTTP/2 with the certificate of that step, the renewed
 * certificate after `certbot renew`, a second deployment after `git pull`, a release folder that starts where it is
 * moved (on its own packages and Node, the checkout's set aside), and nothing left after the stop. The doc's systemd
 * units (nginx, the watcher, the deployment, the instance template) pass `systemd-analyze verify`.
 */
import { spawn, spawnSync } from 'node:child_process'
import { X509Certificate } from 'node:crypto'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import http2 from 'node:http2'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import tls from 'node:tls'
import t from 'tap'
import { listeningPortOf, onFreePort, onFreePorts } from '../helpers/free-port.ts'
import { until } from '../helpers/until.ts'
import { startPebble } from './pebble.ts'
import { projectRoot } from '../reliability/server-process.ts'

// A clone, `npm ci`, three builds and a certificate on a busy 2-core machine: many minutes.
t.setTimeout(1_500_000)

const doc = readFileSync(path.join(projectRoot, 'docs', 'running-at-scale.md'), 'utf8')

/** The doc's blocks marked `sh step=<name>`, by name. */
export function readDocSteps(markdown: string): Map<string, string> {
  const steps = new Map<string, string>()
  for (const match of markdown.matchAll(/^```sh step=([a-z-]+)\n([\s\S]*?)^```$/gm)) steps.set(match[1]!, match[2]!)
  return steps
}

const steps = readDocSteps(doc)
const order = [
  'clone',
  'redis',
  'env',
  'trial-certificate',
  'deploy-trial',
  'certbot',
  'deploy-certificate',
  'renew',
  'second-deploy',
  'stop',
]
t.same([...steps.keys()], order, 'the doc gives these steps, in this order')

const work = mkdtempSync(path.join(tmpdir(), 'courier-production-path-'))
// Open to others, as /srv is: nginx's workers (user nobody) read the state's files.
chmodSync(work, 0o755)
const variables = {
  COURIER_REPO: path.join(work, 'upstream.git'),
  COURIER_SRC: path.join(work, 'src'),
  // Outside the clone.
  COURIER_STATE: path.join(work, 'state'),
  COURIER_HOST: 'localhost',
  // The ports: set by the steps that start what listens on them (redisStep, deployTrialStep).
  COURIER_HTTP: '',
  COURIER_HTTPS: '',
  COURIER_EMAIL: 'ops@courier.test',
  REDIS_PORT: '',
  LETSENCRYPT: path.join(work, 'letsencrypt'),
}
const portOf = (address: string) => Number(address.split(':')[1])

// The remote: this repository's committed HEAD.
const cloned = spawnSync('git', ['clone', '--bare', '--quiet', projectRoot, variables.COURIER_REPO], {
  encoding: 'utf8',
})
if (cloned.status !== 0) throw new Error(`git clone --bare failed: ${cloned.stderr}`)

// Where startPebble puts its `certbot` (pebble starts once nginx's plain port is known, after the trial deploy).
const bin = path.join(work, 'bin')
let stopPebble: (() => void) | undefined

const { NODE_OPTIONS: _runnerOptions, ...inherited } = process.env
// The machine as a newcomer has it: no Node of this checkout on PATH (the clone brings its own), and NODE_ENV as the
// suite sets it (production, as on many servers).
const machinePath = (process.env.PATH ?? '')
  .split(':')
  .filter((entry) => !entry.startsWith(projectRoot))
  .join(':')
const env: NodeJS.ProcessEnv = { ...inherited, ...variables, PATH: `${bin}:${machinePath}` }

/** Sets one of the doc's port variables for the steps that follow. */
function setVariable(name: 'COURIER_HTTP' | 'COURIER_HTTPS' | 'REDIS_PORT', value: string): void {
  variables[name] = value
  env[name] = value
}

t.teardown(async () => {
  // Whatever a failed step left: the state's processes (by the deploy's own --stop), Redis, pebble.
  if (existsSync(path.join(variables.COURIER_STATE, 'state.json'))) {
    spawnSync(
      process.execPath,
      [path.join(projectRoot, 'deploy', 'rolling-deploy.ts'), '--stop', '--state', variables.COURIER_STATE],
      { env },
    )
  }
  if (variables.REDIS_PORT) {
    const REDISCLI_AUTH = redisPassword()
    spawnSync('redis-cli', ['-p', variables.REDIS_PORT, 'shutdown', 'nosave'], { env: { ...env, REDISCLI_AUTH } })
  }
  stopPebble?.()
  rmSync(work, { recursive: true, force: true })
})

/** The password the `redis` step gave Redis (its `requirepass` line); '' before the step. */
function redisPassword(): string {
  const file = path.join(variables.COURIER_STATE, 'redis.conf')
  return existsSync(file) ? (/^requirepass (\S+)$/m.exec(readFileSync(file, 'utf8'))?.[1] ?? '') : ''
}

/** redis-cli against the trial's Redis, with the password or without; what it printed. */
function redisCli(password: string | undefined, ...args: string[]): string {
  const auth = password === undefined ? {} : { REDISCLI_AUTH: password }
  const { REDISCLI_AUTH: _inherited, ...rest } = env
  return spawnSync('redis-cli', ['-p', variables.REDIS_PORT, ...args], { env: { ...rest, ...auth }, encoding: 'utf8' })
    .stdout
}

/** One step of the doc, as bash runs a pasted block (stopping at the first failing command). */
function runStep(
  name: string,
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', steps.get(name)!], {
      cwd: work,
      env: { ...env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')))
    child.once('exit', (code) => resolve({ code, output }))
  })
}

async function step(name: string, extraEnv: Record<string, string> = {}): Promise<string> {
  const { code, output } = await runStep(name, extraEnv)
  if (code !== 0) throw new Error(`step ${name} failed (exit ${code}):\n${output.slice(-6000)}`)
  return output
}

/**
 * The `redis` step on a free port, run again on another when that one was taken in between: redis-server puts itself
 * in the background before it listens, so its log says which (`Ready to accept connections`, `Address already in use`).
 */
function redisStep(): Promise<void> {
  const log = path.join(variables.COURIER_SRC, 'redis.log')
  return onFreePort(async (port) => {
    setVariable('REDIS_PORT', String(port))
    rmSync(log, { force: true })
    await step('redis')
    const said = await until(
      'redis-server to listen or give up',
      () => {
        const text = existsSync(log) ? readFileSync(log, 'utf8') : ''
        return /Ready to accept connections|Address already in use/.test(text) ? text : undefined
      },
      30_000,
    )
    if (!said.includes('Ready to accept connections')) throw new Error(`redis-server did not start:\n${said}`)
  })
}

/** The `deploy-trial` step on two free ports, run again on others when nginx finds one taken (the deploy undoes itself). */
function deployTrialStep(): Promise<void> {
  return onFreePorts(2, async ([plain, https]) => {
    setVariable('COURIER_HTTP', `127.0.0.1:${plain}`)
    setVariable('COURIER_HTTPS', `127.0.0.1:${https}`)
    await step('deploy-trial')
  })
}

/** The leaf certificate nginx serves on HTTPS. */
function servedCertificate(): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect(
      {
        host: '127.0.0.1',
        port: portOf(variables.COURIER_HTTPS),
        servername: variables.COURIER_HOST,
        rejectUnauthorized: false,
      },
      () => {
        resolve(socket.getPeerX509Certificate()?.fingerprint256 ?? '')
        socket.end()
      },
    )
    socket.once('error', reject)
  })
}

const fingerprintOf = (file: string) => new X509Certificate(readFileSync(file)).fingerprint256

/** `/` over HTTPS and HTTP/2: the protocol, status, HSTS and the deployment it names. */
async function home(): Promise<{
  protocol: string | false | undefined
  status: number
  hsts: unknown
  deploymentId: string | undefined
}> {
  const session = http2.connect(`https://127.0.0.1:${portOf(variables.COURIER_HTTPS)}`, {
    servername: variables.COURIER_HOST,
    rejectUnauthorized: false,
  })
  try {
    return await new Promise((resolve, reject) => {
      const stream = session.request({ ':path': '/', ':authority': variables.COURIER_HOST })
      let body = ''
      let headers: http2.IncomingHttpHeaders = {}
      stream.on('response', (received) => (headers = received))
      stream.setEncoding('utf8')
      stream.on('data', (part: string) => (body += part))
      stream.on('end', () =>
        resolve({
          protocol: session.alpnProtocol,
          status: Number(headers[':status']),
          hsts: headers['strict-transport-security'],
          deploymentId: /data-dpl-id="([^"]+)"/.exec(body)?.[1],
        }),
      )
      stream.on('error', reject)
    })
  } finally {
    session.close()
  }
}

const state = () =>
  JSON.parse(readFileSync(path.join(variables.COURIER_STATE, 'state.json'), 'utf8')) as {
    deployments: Array<{ id: string; root: string }>
  }

t.test('the doc, step by step', async (t) => {
  await step('clone')
  t.ok(
    existsSync(path.join(variables.COURIER_SRC, 'node_modules', '.bin', 'node')),
    'clone: npm ci installed the pinned Node',
  )
  await redisStep()
  const password = redisPassword()
  t.match(password, /^[0-9a-f]{64}$/, 'redis: a password of 32 random bytes')
  t.equal(
    statSync(path.join(variables.COURIER_STATE, 'redis.conf')).mode & 0o777,
    0o600,
    'in a file only its owner reads',
  )
  t.match(redisCli(undefined, 'get', 'courier:x'), /NOAUTH/, 'redis refuses a client without the password')
  await step('env')
  const envFile = path.join(variables.COURIER_STATE, 'courier.env')
  t.equal(
    readFileSync(envFile, 'utf8').replace(/REVALIDATE_TOKEN=[0-9a-f]{48}\n$/, 'REVALIDATE_TOKEN=...'),
    `REDIS_URL=redis://:${password}@127.0.0.1:${variables.REDIS_PORT}\nREVALIDATE_TOKEN=...`,
  )
  t.equal(statSync(envFile).mode & 0o777, 0o600, 'the environment file: its owner alone reads it')
  await step('trial-certificate')

  await deployTrialStep()
  const first = await home()
  t.same(
    { ...first, deploymentId: first.deploymentId !== undefined },
    { protocol: 'h2', status: 200, hsts: 'max-age=63072000', deploymentId: true },
    'the site over HTTPS and HTTP/2',
  )
  t.equal(
    await servedCertificate(),
    fingerprintOf(path.join(variables.COURIER_STATE, 'trial-cert.pem')),
    'with the self-signed certificate',
  )
  // The instances' heartbeats (the revalidation channel, REVALIDATE_TOKEN set): they authenticated with the URL's password.
  t.match(redisCli(password, '--scan', '--pattern', 'courier:*'), /courier:/, 'the instances share state through Redis')
  // What holds it on purpose: the Redis config, the env file, and each instance's record (its environment), all 0600.
  const holders = spawnSync('grep', ['-rl', password, variables.COURIER_STATE], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean)
    .map((file) => path.relative(variables.COURIER_STATE, file))
  t.same(
    holders.filter((file) => !/^(redis\.conf|courier\.env|instances\/[0-9a-f]+\.json)$/.test(file)),
    [],
    'no log or other file of the state holds the password',
  )
  t.same(
    holders.filter((file) => (statSync(path.join(variables.COURIER_STATE, file)).mode & 0o777) !== 0o600),
    [],
    'those that hold it: readable by their owner only',
  )
  const plain = await fetch(`http://${variables.COURIER_HOST}:${portOf(variables.COURIER_HTTP)}/some/page?page=2`, {
    redirect: 'manual',
  })
  t.equal(plain.status, 301, 'plain HTTP redirects')
  t.equal(
    plain.headers.get('location'),
    `https://${variables.COURIER_HOST}:${portOf(variables.COURIER_HTTPS)}/some/page?page=2`,
    "to the site's name",
  )

  const pebble = await startPebble(work, {
    validationPort: portOf(variables.COURIER_HTTP),
    certbotConfigDir: variables.LETSENCRYPT,
  })
  stopPebble = pebble.stop
  if (pebble.bin !== bin) throw new Error(`pebble's certbot is in ${pebble.bin}, not first on PATH (${bin})`)
  const issued = await step('certbot')
  const live = path.join(variables.LETSENCRYPT, 'live', variables.COURIER_HOST)
  t.ok(existsSync(path.join(live, 'fullchain.pem')), 'certbot: a certificate through the webroot')
  t.match(issued, /Successfully received certificate/)
  await step('deploy-certificate')
  const issuedFingerprint = fingerprintOf(path.join(live, 'fullchain.pem'))
  t.equal(await servedCertificate(), issuedFingerprint, "served: certbot's certificate")
  t.match(new X509Certificate(readFileSync(path.join(live, 'fullchain.pem'))).issuer, /Pebble/)

  const renewed = await step('renew')
  t.match(renewed, /Hook 'deploy-hook' ran/, 'the deploy hook ran')
  const renewedFingerprint = fingerprintOf(path.join(live, 'fullchain.pem'))
  t.not(renewedFingerprint, issuedFingerprint, 'a new certificate')
  t.equal(await servedCertificate(), renewedFingerprint, 'served right after the renewal (the hook reloaded nginx)')

  // A new commit on the remote for `git pull`, and a build that differs (its id pinned at build time: nothing about
  // the site's pages has to change for a second deployment).
  const upstreamWork = path.join(work, 'upstream-work')
  for (const args of [
    ['clone', '--quiet', variables.COURIER_REPO, upstreamWork],
    [
      '-C',
      upstreamWork,
      '-c',
      'user.name=test',
      '-c',
      'user.email=test@courier.test',
      'commit',
      '--quiet',
      '--allow-empty',
      '-m',
      'second version',
    ],
    ['-C', upstreamWork, 'push', '--quiet', 'origin', 'HEAD'],
  ]) {
    const git = spawnSync('git', args, { encoding: 'utf8' })
    if (git.status !== 0) throw new Error(`git ${args.join(' ')}: ${git.stderr}`)
  }
  const firstRelease = state().deployments[0]!
  await step('second-deploy', { DEPLOYMENT_ID: 'production-path-second' })
  const second = await home()
  t.equal(second.deploymentId, 'production-path-second', 'the second deployment serves documents over HTTPS')
  t.not(first.deploymentId, second.deploymentId)
  t.same(
    state().deployments.map((one) => one.id),
    ['production-path-second'],
    'the first one drained',
  )

  // The first release, moved out of the state folder, still starts: on its own Node and packages, with the
  // checkout's node_modules set aside (as on another machine).
  const moved = path.join(work, 'moved-release')
  renameSync(firstRelease.root, moved)
  const checkoutPackages = path.join(variables.COURIER_SRC, 'node_modules')
  renameSync(checkoutPackages, `${checkoutPackages}.aside`)
  // PORT=0: the port the system gives it, read from its sockets.
  const server = spawn(path.join(moved, 'node_modules', '.bin', 'node'), ['dist/node/server.js'], {
    cwd: moved,
    env: { PATH: env.PATH, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  })
  const port = await listeningPortOf(server).catch(() => 0)
  let answer = 0
  for (let attempt = 0; attempt < 300 && answer !== 200 && server.exitCode === null; attempt += 1) {
    answer = await fetch(`http://127.0.0.1:${port}/api/ready`).then(
      (response) => response.status,
      () => 0,
    )
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const movedHome = await fetch(`http://127.0.0.1:${port}/`).then(
    (response) => response.text(),
    () => '',
  )
  server.kill('SIGTERM')
  renameSync(`${checkoutPackages}.aside`, checkoutPackages)
  t.equal(answer, 200, "a release folder moved elsewhere starts, without the checkout's packages")
  t.match(movedHome, `data-dpl-id="${firstRelease.id}"`, 'and serves its own build')

  await step('stop')
  const listening = await Promise.all(
    [variables.COURIER_HTTP, variables.COURIER_HTTPS, `127.0.0.1:${variables.REDIS_PORT}`].map(
      (address) =>
        new Promise<string | undefined>((resolve) => {
          const socket = net.connect(Number(address.split(':')[1]), '127.0.0.1')
          socket.once('connect', () => (socket.destroy(), resolve(address)))
          socket.once('error', () => resolve(undefined))
        }),
    ),
  )
  t.same(listening.filter(Boolean), [], 'stopped: nginx and Redis no longer listen')
  t.same(state().deployments, [], 'no live deployment')
})

const canVerifyUnits = spawnSync('systemd-analyze', ['--version']).status === 0
t.test(
  "the doc's systemd units pass systemd-analyze verify",
  { skip: canVerifyUnits ? false : 'systemd-analyze is not installed here' },
  async (t) => {
    const units = [...doc.matchAll(/^```ini\n# \/etc\/systemd\/system\/(\S+)\n([\s\S]*?)^```$/gm)]
    t.same(
      units.map((unit) => unit[1]),
      ['courier-nginx.service', 'courier-watcher.service', 'courier.service', 'courier-instance@.service'],
    )
    const folder = path.join(tmpdir(), `courier-units-${process.pid}`)
    mkdirSync(folder, { recursive: true })
    t.teardown(() => rmSync(folder, { recursive: true, force: true }))
    // The programs they name must exist: this checkout stands in for /srv/courier-src.
    for (const [, name, text] of units)
      writeFileSync(path.join(folder, name!), text!.replaceAll('/srv/courier-src', projectRoot))
    // A template is verified as one of its units (systemd-analyze reads the template beside it): instance 5e0c1a2b.
    const asUnit = (name: string) => name.replace('@.service', '@5e0c1a2b.service')
    const verified = spawnSync(
      'systemd-analyze',
      ['verify', ...units.map((unit) => path.join(folder, asUnit(unit[1]!)))],
      { encoding: 'utf8' },
    )
    t.equal(verified.status, 0, verified.stderr || 'no complaint')
    t.equal(verified.stderr.trim(), '', 'no warning')
  },
)
