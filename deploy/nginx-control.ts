/**
 * nginx of one state folder: started once, reloaded after each change of its configuration, stopped by `--stop`. The
 * master is signalled by this code, not by `nginx -s`, which signals whatever pid logs/nginx.pid holds: only a process
 * whose command line is an nginx master's and which listens on the state's port is ever signalled.
 */
import { spawnSync } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { renderRouting, writePrefix, writeRouting, type LiveDeployment, type TlsOptions } from './nginx-prefix.ts'
import { siteUrlOf } from './instance-env.ts'
import { upstreamOf } from './instance-socket.ts'
import { listensOn, startTimeOf } from './process-identity.ts'
import { readOutOfRotation, readState, withLock, type State, type StatePaths } from './state.ts'

/** After a reload, nginx's old workers finish their requests within this (its proxy time-outs bound them). */
const oldWorkersWaitMs = 10_000

function nginx(prefix: string, ...args: string[]): void {
  const result = spawnSync('nginx', ['-p', prefix, '-c', path.join(prefix, 'nginx.conf'), ...args], {
    encoding: 'utf8',
  })
  if (result.error) {
    throw new Error(
      `nginx could not run (${result.error.message}): install Debian's nginx and libnginx-mod-http-brotli-static`,
    )
  }
  if (result.status !== 0) throw new Error(`nginx ${args.join(' ')} failed: ${result.stderr.trim()}`)
}

/** `nginx -t`: a configuration nginx would refuse is refused here, with nginx's own words, before any signal. */
export function testConfiguration(prefix: string): void {
  nginx(prefix, '-t', '-q')
}

/** The master of this prefix, if it runs: the pid file's process, an nginx master, listening on `port`. */
export async function nginxMaster(prefix: string, port: number): Promise<number | undefined> {
  const pid = Number((await readFile(path.join(prefix, 'logs', 'nginx.pid'), 'utf8').catch(() => '')).trim())
  if (!Number.isInteger(pid) || pid <= 0 || (await startTimeOf(pid)) === undefined) return undefined
  const commandLine = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ')
  if (!commandLine.startsWith('nginx: master process')) return undefined
  return (await listensOn(pid, port)) ? pid : undefined
}

/** The pids of the master's worker processes (its children whose command line names a worker). */
async function workersOf(master: number): Promise<number[]> {
  const workers: number[] = []
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '')
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    if (ppid !== master) continue
    const commandLine = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')
    if (commandLine.includes('worker process')) workers.push(Number(entry))
  }
  return workers
}

const running = async (pid: number) => (await startTimeOf(pid)) !== undefined

/** Starts nginx on the prefix (it puts itself in the background), or reloads the running one. */
export async function startOrReload(prefix: string, port: number): Promise<'started' | 'reloaded'> {
  testConfiguration(prefix)
  const master = await nginxMaster(prefix, port)
  if (master === undefined) {
    nginx(prefix)
    return 'started'
  }
  process.kill(master, 'SIGHUP')
  return 'reloaded'
}

/**
 * Reload, then the wait for every worker of the old configuration to exit: they finish the requests they hold under
 * that configuration, which may still route to instances being taken out, so those are stopped only after it (or
 * after `oldWorkersWaitMs`). The workers waited for are those that ran before the signal.
 */
export async function reloadAndDrainOldWorkers(prefix: string, port: number): Promise<void> {
  testConfiguration(prefix)
  const master = await nginxMaster(prefix, port)
  if (master === undefined) throw new Error(`nginx of ${prefix} is not running on port ${port}`)
  const oldWorkers = await workersOf(master)
  process.kill(master, 'SIGHUP')
  const deadline = Date.now() + oldWorkersWaitMs
  for (;;) {
    const alive = await Promise.all(oldWorkers.map(running))
    if (!alive.includes(true) || Date.now() > deadline) return
    await sleep(50)
  }
}

/** Graceful stop (SIGQUIT: workers finish their requests), waited for up to 15 s. */
export async function stopNginx(prefix: string, port: number): Promise<boolean> {
  const master = await nginxMaster(prefix, port)
  if (master === undefined) return false
  process.kill(master, 'SIGQUIT')
  const deadline = Date.now() + 15_000
  while ((await running(master)) && Date.now() < deadline) await sleep(50)
  return true
}

/** The routing of a state: each live deployment's instances, those the watcher took out marked `down`. */
export function routingOf(state: State, outOfRotation: Set<string>): LiveDeployment[] {
  return state.deployments.map((deployment) => {
    const servers = deployment.instances.map(upstreamOf)
    return { id: deployment.id, servers, down: servers.filter((server) => outOfRotation.has(server)) }
  })
}

/** Where nginx listens: the plain address (the redirect port with TLS) and the TLS part, if any. */
export interface FrontDoor {
  listen: string
  tls?: TlsOptions
}

export function portOf(address: string): number {
  return Number(address.slice(address.lastIndexOf(':') + 1))
}

/**
 * Writes deployments.conf from `state` (and the watcher's out-of-rotation list) and reloads nginx when it changed,
 * holding the state's routing lock: the deploy and the readiness watcher never write it at once. With `frontDoor` (a
 * deploy, `--reload`) the whole prefix is written again (listen.conf, the certificate paths, the fixed files) and
 * nginx started or reloaded whatever changed: it re-reads the certificate files. Returns whether nginx was signalled.
 */
export async function applyRouting(
  paths: StatePaths,
  port: number,
  options: { state?: State; frontDoor?: FrontDoor; drainOldWorkers?: boolean } = {},
): Promise<boolean> {
  return withLock(paths, 'routing', 30_000, async () => {
    const state = options.state ?? (await readState(paths))
    if (state.deployments.length === 0) return false
    const deployments = routingOf(state, await readOutOfRotation(paths))
    const file = path.join(paths.nginx, 'deployments.conf')
    if (options.frontDoor) {
      const { listen, tls } = options.frontDoor
      const siteUrl = tls ? await siteUrlOf(paths.envFile, listen, tls) : undefined
      await writePrefix({ prefix: paths.nginx, ...options.frontDoor, siteUrl, deployments })
    } else {
      const text = renderRouting({ deployments })
      if ((await readFile(file, 'utf8').catch(() => '')) === text) return false
      await writeRouting(paths.nginx, { deployments })
    }
    if (options.drainOldWorkers) await reloadAndDrainOldWorkers(paths.nginx, port)
    else await startOrReload(paths.nginx, port)
    return true
  })
}
