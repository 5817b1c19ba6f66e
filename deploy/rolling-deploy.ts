/**
 * A rolling deploy on one machine (docs/running-at-scale.md "Rolling deploy"): builds the new deployment, publishes its assets into
 * the shared folder (with deltas of its chunks against the retained deployments'), starts its instances, waits until each answers /api/ready, points nginx at them (documents to
 * the new deployment, requests naming the old one still to the old instances), and after a grace period drains the
 * old instances (SIGTERM: they finish what is in flight) and prunes the assets of deployments beyond the last few.
 *
 *   node deploy/rolling-deploy.ts [--state run/scale] [--listen 127.0.0.1:8080] [--instances 2]
 *       [--keep 3] [--old-grace-seconds 30] [--source .] [--dist <built dist, skips the build>]
 *   node deploy/rolling-deploy.ts --stop [--state run/scale]
 *
 * Node runs this script from its TypeScript source itself (type stripping, Node >= 22.18): no loader. Each instance is
 * the deployment's compiled server (`<dist>/node/server.js`) started the way `npm start` starts it (package.json's
 * `start`: its variables and Node's flags), on this script's Node, with the source's node_modules for the packages the
 * compiled server leaves out of its bundle (React, pino, sharp, ...): a deployment built by this script gets a link to
 * them beside its dist/; a `--dist` must sit in a checkout with node_modules (as a `npm run build` leaves it).
 * Instances get the environment of this command (REDIS_URL, LOG_LEVEL, ...) plus PORT, HOST=127.0.0.1, DIST_DIR
 * and TRUST_PROXY=127.0.0.1 (nginx on this machine). State (live deployments, pids, ports) is in <state>/state.json;
 * nginx runs with <state>/nginx as its prefix; each instance logs to <state>/releases/<id>/instance-<port>.log.
 */
import { spawn, spawnSync } from 'node:child_process'
import { closeSync, existsSync, openSync } from 'node:fs'
import { chmod, mkdir, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { publishAssets, pruneAssets, retainedChunkNames, writePrefix, writeRouting, type LiveDeployment } from './nginx-prefix.ts'
import { freePort } from './free-port.ts'
import { dictionaryFilesIn, writeDeltas } from '../src/build/dictionary-deltas.ts'
import { readStartCommand } from '../src/build/start-command.ts'

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

interface Instance {
  port: number
  pid: number
}

interface DeployedRelease {
  id: string
  distDir: string
  instances: Instance[]
}

interface State {
  deployments: DeployedRelease[]
}

/** Every wait of the script, bounded. */
const waits = Object.freeze({
  /** From spawn to 200 from /api/ready (a fraction of a second on an idle machine; a busy one under load is slower). */
  readyMs: 90_000,
  /** From SIGTERM to exit; the server's own grace period is 10 s. */
  drainMs: 15_000,
  /** After a reload, nginx's old workers finish their requests within this (its proxy time-outs bound them). */
  nginxOldWorkersMs: 10_000,
})

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

function log(message: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), msg: message, ...fields })}\n`)
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}


async function readState(file: string): Promise<State> {
  if (!existsSync(file)) return { deployments: [] }
  const state = JSON.parse(await readFile(file, 'utf8')) as State
  // Instances that died since (a crash, a reboot) are not live any more.
  for (const deployment of state.deployments) deployment.instances = deployment.instances.filter((one) => isRunning(one.pid))
  state.deployments = state.deployments.filter((deployment) => deployment.instances.length > 0)
  return state
}

async function saveState(file: string, state: State): Promise<void> {
  await writeFile(`${file}.next`, JSON.stringify(state, null, 2))
  await rename(`${file}.next`, file)
}

function routing(deployments: DeployedRelease[]): { deployments: LiveDeployment[] } {
  return { deployments: deployments.map((one) => ({ id: one.id, servers: one.instances.map((instance) => `127.0.0.1:${instance.port}`) })) }
}

function nginx(prefix: string, ...args: string[]): void {
  const result = spawnSync('nginx', ['-p', prefix, '-c', path.join(prefix, 'nginx.conf'), ...args], { encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`nginx ${args.join(' ')} failed: ${result.stderr}`)
}

function nginxRunning(prefix: string): boolean {
  const pidFile = path.join(prefix, 'logs', 'nginx.pid')
  if (!existsSync(pidFile)) return false
  const pid = Number(spawnSync('cat', [pidFile], { encoding: 'utf8' }).stdout.trim())
  return Number.isInteger(pid) && pid > 0 && isRunning(pid)
}

/** The pids of the nginx master's worker processes (Linux /proc: its children whose command line names a worker). */
async function nginxWorkers(prefix: string): Promise<number[]> {
  const master = Number((await readFile(path.join(prefix, 'logs', 'nginx.pid'), 'utf8').catch(() => '')).trim())
  if (!Number.isInteger(master) || master <= 0) return []
  const workers: number[] = []
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '')
    // pid (comm) state ppid ...: the ppid after the closing parenthesis.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    if (ppid !== master) continue
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')
    if (cmdline.includes('worker process')) workers.push(Number(entry))
  }
  return workers
}

/**
 * `nginx -s reload`, then the wait for every worker of the old configuration to exit: they finish the requests they
 * hold (and close idle kept-alive connections) under that configuration, which may still route to the instances being
 * taken out, so those are stopped only after it, or after `waits.nginxOldWorkersMs`. The workers waited for are the
 * ones that ran before the signal: the signal only asks the master, which may not have told any of them to shut down
 * yet when the wait begins (under load it did not, and an instance stopped then answered an old worker's request 503).
 */
async function reloadNginxAndDrainOldWorkers(prefix: string): Promise<void> {
  const oldWorkers = await nginxWorkers(prefix)
  nginx(prefix, '-s', 'reload')
  const deadline = Date.now() + waits.nginxOldWorkersMs
  while (oldWorkers.some(isRunning)) {
    if (Date.now() > deadline) return log('old nginx workers still running: stopping the old instances anyway', { waitedMs: waits.nginxOldWorkersMs })
    await sleep(50)
  }
}

async function waitReady(port: number, pid: number): Promise<void> {
  const deadline = Date.now() + waits.readyMs
  while (Date.now() < deadline) {
    if (!isRunning(pid)) throw new Error(`instance on port ${port} exited before it was ready`)
    const status = await fetch(`http://127.0.0.1:${port}/api/ready`).then((response) => response.status, () => 0)
    if (status === 200) return
    await sleep(100)
  }
  throw new Error(`instance on port ${port} not ready within ${waits.readyMs} ms`)
}

async function stopInstances(instances: Instance[]): Promise<void> {
  for (const instance of instances) if (isRunning(instance.pid)) process.kill(instance.pid, 'SIGTERM')
  const deadline = Date.now() + waits.drainMs
  while (instances.some((instance) => isRunning(instance.pid)) && Date.now() < deadline) await sleep(100)
  for (const instance of instances) {
    if (!isRunning(instance.pid)) continue
    log('instance did not drain in time: killing it', { port: instance.port, pid: instance.pid })
    process.kill(instance.pid, 'SIGKILL')
  }
}

async function build(source: string, releasesDir: string): Promise<{ id: string; distDir: string }> {
  const staging = path.join(releasesDir, `.build-${Date.now()}`, 'dist')
  log('building', { source })
  const result = spawnSync('npm', ['run', 'build'], { cwd: source, env: { ...process.env, DIST_DIR: staging }, stdio: 'inherit' })
  if (result.status !== 0) throw new Error('the build failed')
  const { deploymentId } = JSON.parse(await readFile(path.join(staging, 'deployment.json'), 'utf8')) as { deploymentId: string }
  const release = path.join(releasesDir, deploymentId)
  await rm(release, { recursive: true, force: true })
  await mkdir(release, { recursive: true })
  await rename(staging, path.join(release, 'dist'))
  await rm(path.dirname(staging), { recursive: true, force: true })
  // The compiled server imports React, pino, sharp, ... from node_modules, found from its own folder upwards.
  await symlink(path.join(path.resolve(source), 'node_modules'), path.join(release, 'node_modules'), 'dir')
  return { id: deploymentId, distDir: path.join(release, 'dist') }
}

async function deploy(options: {
  state: string
  listen: string
  instances: number
  keep: number
  oldGraceSeconds: number
  source: string
  dist: string | undefined
}): Promise<void> {
  const stateFile = path.join(options.state, 'state.json')
  const prefix = path.join(options.state, 'nginx')
  const releasesDir = path.join(options.state, 'releases')
  await mkdir(releasesDir, { recursive: true })
  // nginx started as root serves the assets as an unprivileged user: it must be able to reach the prefix.
  await chmod(options.state, 0o755)
  const state = await readState(stateFile)

  // 1. Build (or take a build), 2. publish its assets: from now on its chunks are fetchable through nginx.
  let release: { id: string; distDir: string }
  if (options.dist) {
    const { deploymentId } = JSON.parse(await readFile(path.join(options.dist, 'deployment.json'), 'utf8')) as { deploymentId: string }
    release = { id: deploymentId, distDir: path.resolve(options.dist) }
  } else {
    release = await build(options.source, releasesDir)
  }
  if (state.deployments.some((one) => one.id === release.id)) throw new Error(`deployment ${release.id} is live already`)
  await mkdir(path.join(releasesDir, release.id), { recursive: true })
  // Deltas of its chunks against those of the deployments kept with it (the `keep - 1` before it): a returning
  // visitor's browser holds one of them as a dictionary (docs/running-at-scale.md "Dictionaries after a deploy").
  const assetsDir = path.join(prefix, 'assets')
  const retained = await retainedChunkNames(assetsDir, options.keep - 1)
  const dictionaryFiles = await dictionaryFilesIn(path.join(assetsDir, '_next', 'static', 'chunks'), retained)
  const deltas = await writeDeltas(path.join(release.distDir, 'client', 'chunks'), dictionaryFiles)
  log('dictionary deltas written', { deploymentId: release.id, deltas: deltas.written.length, notSmaller: deltas.notSmaller, tooLarge: deltas.tooLarge })
  const published = await publishAssets(release.distDir, assetsDir, release.id)
  log('assets published', { deploymentId: release.id, files: published })

  // 3. Start its instances and wait until each is ready; a failure stops them and leaves the live site alone.
  const started: Instance[] = []
  const start = await readStartCommand(options.source)
  const entry = path.join(release.distDir, 'node', 'server.js')
  if (!existsSync(entry)) throw new Error(`no compiled server at ${entry}: build with \`npm run build\``)
  try {
    for (let index = 0; index < options.instances; index += 1) {
      const port = await freePort()
      const output = openSync(path.join(releasesDir, release.id, `instance-${port}.log`), 'a')
      const child = spawn(process.execPath, [...start.nodeArgs, entry], {
        cwd: options.source,
        env: {
          ...process.env,
          ...start.env,
          HOST: '127.0.0.1',
          PORT: String(port),
          DIST_DIR: release.distDir,
          TRUST_PROXY: process.env.TRUST_PROXY ?? '127.0.0.1',
        },
        detached: true,
        stdio: ['ignore', output, output],
      })
      closeSync(output)
      child.unref()
      started.push({ port, pid: child.pid! })
    }
    await Promise.all(started.map((one) => waitReady(one.port, one.pid)))
  } catch (error) {
    await stopInstances(started)
    throw error
  }
  log('instances ready', { deploymentId: release.id, ports: started.map((one) => one.port) })

  // 4. Route: documents and unnamed requests to the new deployment, requests naming an old one to its instances.
  const old = state.deployments
  const next: DeployedRelease = { id: release.id, distDir: release.distDir, instances: started }
  state.deployments = [...old, next]
  await saveState(stateFile, state)
  if (nginxRunning(prefix)) {
    await writeRouting(prefix, routing(state.deployments))
    nginx(prefix, '-s', 'reload')
  } else {
    await writePrefix({ prefix, listen: options.listen, ...routing(state.deployments) })
    nginx(prefix)
  }
  log('nginx routes documents to the new deployment', { deploymentId: release.id, listen: options.listen })

  // 5. After the grace period, take the old instances out of nginx and drain them.
  if (old.length > 0) {
    log('old deployments keep serving requests that name them', { seconds: options.oldGraceSeconds, deployments: old.map((one) => one.id) })
    await sleep(options.oldGraceSeconds * 1000)
    state.deployments = [next]
    await writeRouting(prefix, routing(state.deployments))
    await reloadNginxAndDrainOldWorkers(prefix)
    await stopInstances(old.flatMap((one) => one.instances))
    await saveState(stateFile, state)
    log('old instances drained', { deployments: old.map((one) => one.id) })
  }

  // 6. Old deployments' assets stay fetchable from the shared folder for the last `keep` deployments.
  const dropped = await pruneAssets(path.join(prefix, 'assets'), options.keep, [release.id])
  if (dropped.length > 0) log('assets of old deployments removed', { deployments: dropped })
  log('deployed', { deploymentId: release.id })
}

async function stopAll(stateDir: string): Promise<void> {
  const stateFile = path.join(stateDir, 'state.json')
  const prefix = path.join(stateDir, 'nginx')
  const state = await readState(stateFile)
  if (nginxRunning(prefix)) nginx(prefix, '-s', 'quit')
  await stopInstances(state.deployments.flatMap((one) => one.instances))
  state.deployments = []
  if (existsSync(stateFile)) await saveState(stateFile, state)
  log('stopped')
}

function wholeNumber(name: string, text: string, minimum: number): number {
  const value = Number(text)
  if (!Number.isInteger(value) || value < minimum) throw new Error(`--${name} must be a whole number >= ${minimum}`)
  return value
}

try {
  const { values } = parseArgs({
    options: {
      state: { type: 'string', default: path.join(projectRoot, 'run', 'scale') },
      listen: { type: 'string', default: '127.0.0.1:8080' },
      instances: { type: 'string', default: '2' },
      keep: { type: 'string', default: '3' },
      'old-grace-seconds': { type: 'string', default: '30' },
      source: { type: 'string', default: projectRoot },
      dist: { type: 'string' },
      stop: { type: 'boolean', default: false },
    },
  })
  const stateDir = path.resolve(values.state)
  if (values.stop) await stopAll(stateDir)
  else
    await deploy({
      state: stateDir,
      listen: values.listen,
      instances: wholeNumber('instances', values.instances, 1),
      keep: wholeNumber('keep', values.keep, 1),
      oldGraceSeconds: wholeNumber('old-grace-seconds', values['old-grace-seconds'], 0),
      source: path.resolve(values.source),
      dist: values.dist,
    })
} catch (error) {
  log('deploy failed', { error: (error as Error).message })
  process.exitCode = 1
}
