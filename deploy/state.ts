/**
 * A state folder: what is live (state.json), which instances the readiness watcher took out (out-of-rotation.json),
 * and the locks that keep two deploys, or a deploy and the watcher, from writing the routing at once. Every path of a
 * state is here, so a newcomer finds the layout in one place (docs/running-at-scale.md "The state folder").
 */
import { open, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import path from 'node:path'
import { runningNow } from './instance-record.ts'
import { isSameProcess, startTimeOf, type ProcessIdentity } from './process-identity.ts'

export interface Instance extends ProcessIdentity {
  /** The Unix socket it listens on, `<state>/sockets/<name>.sock` (deploy/instance-socket.ts). */
  socket?: string
  /** An instance an older deploy started on a loopback port instead (no `socket`): routed and stopped as it was. */
  port?: number
  log: string
  /** The systemd unit that runs it (`--service-manager systemd`, deploy/instance-units.ts); none when the deploy
   * started it as its own process. */
  unit?: string
}

export interface DeployedRelease {
  id: string
  /** The deployment's project folder: package.json, dist/, client/public/, content/ (or a checkout, for `--dist`). */
  root: string
  instances: Instance[]
}

export interface State {
  /** Live deployments, oldest first; the last takes documents. */
  deployments: DeployedRelease[]
}

export interface StatePaths {
  dir: string
  stateFile: string
  outOfRotationFile: string
  /** nginx's prefix (`nginx -p`). */
  nginx: string
  releases: string
  /** certbot's `--webroot -w`: nginx serves `<acme>/.well-known/acme-challenge/` on the plain port. */
  acme: string
  /** NAME=value lines every instance gets (REDIS_URL, REVALIDATE_TOKEN, ...). */
  envFile: string
  watcherFile: string
  watcherLog: string
  /** Instances a deploy started and has not yet written into state.json (for a deploy killed outright). */
  startingFile: string
  /** `<name>.json`: what each instance runs (deploy/instance-record.ts). */
  instances: string
  /** The instances' Unix sockets, `<name>.sock`: only the deploy's user and nginx's workers enter it. */
  sockets: string
  /** The site's own data (DATA_DIR of every instance, unless the env file names another): outside every release, so
   * it outlives deploys and the pruning of old releases. */
  data: string
}

export function statePaths(dir: string): StatePaths {
  return {
    dir,
    stateFile: path.join(dir, 'state.json'),
    outOfRotationFile: path.join(dir, 'out-of-rotation.json'),
    nginx: path.join(dir, 'nginx'),
    releases: path.join(dir, 'releases'),
    acme: path.join(dir, 'acme'),
    envFile: path.join(dir, 'courier.env'),
    watcherFile: path.join(dir, 'watcher.json'),
    watcherLog: path.join(dir, 'watcher.log'),
    startingFile: path.join(dir, 'starting.json'),
    instances: path.join(dir, 'instances'),
    sockets: path.join(dir, 'sockets'),
    data: path.join(dir, 'data'),
  }
}

async function readJson<T>(file: string, empty: T): Promise<T> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw error
  })
  return text === undefined ? empty : (JSON.parse(text) as T)
}

/** Writes under a temporary name, then renames: a reader never sees half a file. The deploy's user's alone (0600:
 * state.json names every instance's log and release folder). */
export async function writeJsonAtomically(file: string, value: unknown): Promise<void> {
  await writeFile(`${file}.${process.pid}.next`, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 })
  await rename(`${file}.${process.pid}.next`, file)
}

/** state.json as written: every instance the deploy recorded, running or not. */
export function readStateAsWritten(paths: StatePaths): Promise<State> {
  return readJson<State>(paths.stateFile, { deployments: [] })
}

/**
 * The instances of the deployments `ids` (all, without) to stop: those running now (readState) and every systemd unit
 * state.json names, running or not (systemd may be about to start one that exited again).
 */
export async function instancesToStop(paths: StatePaths, ids?: string[]): Promise<Instance[]> {
  const named = (state: State) => state.deployments.filter((one) => !ids || ids.includes(one.id))
  const running = named(await readState(paths)).flatMap((one) => one.instances)
  const units = named(await readStateAsWritten(paths))
    .flatMap((one) => one.instances)
    .filter((one) => one.unit && !running.some((other) => other.unit === one.unit))
  return [...running, ...units]
}

/** The instances a deploy is starting (starting.json): none when no deploy runs. */
export function readStarting(paths: StatePaths): Promise<Instance[]> {
  return readJson<Instance[]>(paths.startingFile, [])
}

/**
 * The state as recorded, each instance as the process that now runs it for its deployment (one started again
 * by systemd or by hand: deploy/instance-run.ts records it), with instances that are no longer running (exited, pid
 * reused) left out.
 */
export async function readState(paths: StatePaths): Promise<State> {
  const state = await readStateAsWritten(paths)
  for (const deployment of state.deployments) {
    deployment.instances = await Promise.all(deployment.instances.map((one) => runningNow(paths, deployment.id, one)))
    const alive = await Promise.all(deployment.instances.map((one) => isSameProcess(one)))
    deployment.instances = deployment.instances.filter((_, index) => alive[index])
  }
  state.deployments = state.deployments.filter((deployment) => deployment.instances.length > 0)
  return state
}

export function saveState(paths: StatePaths, state: State): Promise<void> {
  return writeJsonAtomically(paths.stateFile, state)
}

/** nginx's name of each instance the watcher took out (`unix:<socket>`, deploy/instance-socket.ts `upstreamOf`). */
export async function readOutOfRotation(paths: StatePaths): Promise<Set<string>> {
  return new Set(await readJson<string[]>(paths.outOfRotationFile, []))
}

export function saveOutOfRotation(paths: StatePaths, servers: Iterable<string>): Promise<void> {
  return writeJsonAtomically(paths.outOfRotationFile, [...servers].sort())
}

export class LockBusyError extends Error {
  override name = 'LockBusyError'
}

/**
 * Runs `work` holding `<state>/<name>.lock` (a file with the holder's pid and start time, made with O_EXCL). A lock
 * whose holder is gone (killed, rebooted) is taken over. Waits up to `waitMs` for a live holder, then throws
 * LockBusyError naming it.
 */
export async function withLock<T>(paths: StatePaths, name: string, waitMs: number, work: () => Promise<T>): Promise<T> {
  const file = path.join(paths.dir, `${name}.lock`)
  await mkdir(paths.dir, { recursive: true })
  const me: ProcessIdentity = { pid: process.pid, startTime: (await startTimeOf(process.pid))! }
  const deadline = Date.now() + waitMs
  for (;;) {
    try {
      const handle = await open(file, 'wx')
      await handle.writeFile(JSON.stringify(me))
      await handle.close()
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const holder = await readJson<ProcessIdentity | undefined>(file, undefined).catch(() => undefined)
      // Half-written (its holder is between open and write) counts as held; a holder that is gone as free.
      if (holder && !(await isSameProcess(holder))) {
        await rm(file, { force: true })
        continue
      }
      if (Date.now() > deadline) {
        throw new LockBusyError(`${file} is held by process ${holder?.pid ?? '(starting)'}: another ${name} is running`)
      }
      await sleep(50)
    }
  }
  try {
    return await work()
  } finally {
    await rm(file, { force: true })
  }
}
