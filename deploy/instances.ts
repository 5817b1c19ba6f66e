/**
 * Steps 3 and 4 of a deploy, and the end of every instance: started as `npm start` starts the server (package.json's
 * `start`: its variables and Node's flags) on the release's own Node (its node_modules/.bin/node), each on a Unix socket
 * of the state named before it starts (deploy/instance-socket.ts), with its log in the release folder, and recorded
 * (deploy/instance-record.ts: so it can be started again where nginx sends); ready when `/api/ready` answers 200;
 * stopped with SIGTERM (it drains), only when the pid, its start time and, for an instance recorded in the state, the
 * socket it listens on are the ones recorded; one that systemd runs, with `systemctl stop` (deploy/instance-units.ts).
 */
import { spawn } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { access, mkdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { readStartCommand } from '../src/build/index.ts'
import { readRecord, removeRecord, writeRecord, type InstanceCommand } from './instance-record.ts'
import {
  instanceName,
  listensWhereRecorded,
  newInstanceName,
  prepareSocketFolder,
  readyStatus,
  socketOf,
  upstreamOf,
} from './instance-socket.ts'
import { identify, isSameProcess } from './process-identity.ts'
import type { Release } from './release.ts'
import type { Instance, StatePaths } from './state.ts'
import { stopUnit } from './systemctl.ts'

/** Every wait here, bounded. */
export const waits = Object.freeze({
  /** From spawn to 200 from /api/ready (a fraction of a second on an idle machine; a busy one under load is slower). */
  readyMs: 90_000,
  /** From spawn to the `Server listening` line in the instance's log (it listens before it warms up). */
  listeningMs: 90_000,
  /** From SIGTERM to exit; the server's own grace period is 10 s. */
  drainMs: 15_000,
})

/** Lines of an instance's log shown when it fails to start. */
const logTailLines = 20

export type Log = (message: string, fields?: Record<string, unknown>) => void

/** How `release`'s instances start with `env` (deploy/instance-env.ts): as `npm start` starts the server, on the Node
 * the release pins and holds (node_modules/.bin/node; this script's for a project without one). */
export async function instanceCommand(release: Release, env: Record<string, string>): Promise<InstanceCommand> {
  const start = await readStartCommand(release.root)
  const pinned = path.join(release.root, 'node_modules', '.bin', 'node')
  return {
    node: await access(pinned).then(
      () => pinned,
      () => process.execPath,
    ),
    args: [...start.nodeArgs, path.join(release.distDir, 'node', 'server.js')],
    cwd: release.root,
    env: { ...start.env, ...env },
  }
}

/** What starting a deployment's instances takes (the systemd way too, deploy/instance-units.ts). */
export interface StartOptions {
  paths: StatePaths
  deploymentId: string
  command: InstanceCommand
  count: number
  /** The release's `logs/`. */
  logDir: string
  /** Told of the instances as each starts (the deploy records them, for an interrupted deploy to stop). */
  onStarted: (started: Instance[]) => Promise<void>
  signal: AbortSignal
  log: Log
}

/** An instance that runs, once it listens on its socket (whatever its log level says). */
export async function waitListening(instance: Instance, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + waits.listeningMs
  const failure = async (what: string) =>
    new Error(
      `the instance ${instanceName(instance)} (pid ${instance.pid}) ${what}; its log ${instance.log} ends with:\n` +
        (await tailOf(instance.log)),
    )
  while (Date.now() < deadline) {
    signal.throwIfAborted()
    if (await listensWhereRecorded(instance)) return
    if (!(await isSameProcess(instance))) throw await failure('exited before it listened')
    await sleep(50, undefined, { signal })
  }
  throw await failure(`did not listen within ${waits.listeningMs} ms`)
}

/** A name for a new instance of the state, and its socket: recorded by no instance, live or not. */
export async function newInstanceSocket(paths: StatePaths): Promise<{ name: string; socket: string }> {
  await prepareSocketFolder(paths)
  const name = await newInstanceName(async (one) => (await readRecord(paths, one)) !== undefined)
  return { name, socket: socketOf(paths, name) }
}

/**
 * Starts `count` instances as the deploy's own processes, each on a socket of the state, logging into `logDir`
 * (`instance-<name>.log`), each recorded as soon as it runs. Should one not come to listen, all are stopped before the
 * error is thrown.
 */
export async function startInstances(options: StartOptions): Promise<Instance[]> {
  const { paths, deploymentId, command, count, logDir, onStarted, signal, log } = options
  await mkdir(logDir, { recursive: true })
  const started: Instance[] = []
  try {
    for (let index = 0; index < count; index += 1) {
      const { name, socket } = await newInstanceSocket(paths)
      const file = path.join(logDir, `instance-${name}.log`)
      const env = { ...command.env, SOCKET_PATH: socket }
      const output = openSync(file, 'a')
      const child = spawn(command.node, command.args, {
        cwd: command.cwd,
        env,
        // A process group of its own: Ctrl+C in the deploy's terminal reaches the deploy, which decides.
        detached: true,
        stdio: ['ignore', output, output],
      })
      closeSync(output)
      child.unref()
      // Recorded at once (its record for instance-run, starting.json for an interrupted deploy), before it listens.
      const identity = await identify(child.pid)
      await writeRecord(paths, { name, deploymentId, log: file, command: { ...command, env }, ...identity })
      started.push({ socket, log: file, ...identity })
      await onStarted(started)
    }
    await Promise.all(started.map((instance) => waitListening(instance, signal)))
    return started
  } catch (error) {
    await stopInstances(started, { checkSocket: false, log, paths })
    throw error
  }
}

/** The last lines of a log, for a message. */
export async function tailOf(file: string, lines = logTailLines): Promise<string> {
  const text = await readFile(file, 'utf8').catch((error: Error) => `(unreadable: ${error.message})`)
  return text.trimEnd().split('\n').slice(-lines).join('\n')
}

async function waitReady(instance: Instance, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + waits.readyMs
  while (Date.now() < deadline) {
    signal.throwIfAborted()
    if (!(await isSameProcess(instance))) {
      throw new Error(
        `the instance ${instanceName(instance)} exited before it was ready; its log ${instance.log} ends with:\n` +
          (await tailOf(instance.log)),
      )
    }
    if ((await readyStatus(upstreamOf(instance), 2_000)) === 200) return
    await sleep(100, undefined, { signal })
  }
  throw new Error(
    `the instance ${instanceName(instance)} was not ready within ${waits.readyMs} ms; ` +
      `its log ${instance.log} ends with:\n${await tailOf(instance.log)}`,
  )
}

export async function waitAllReady(instances: Instance[], signal: AbortSignal): Promise<void> {
  await Promise.all(instances.map((one) => waitReady(one, signal)))
}

/**
 * SIGTERM to each instance that is still the process recorded (pid and start time; with `checkSocket`, listening on
 * its socket too: an instance from the state file), then SIGKILL to those still running after `waits.drainMs`; `systemctl
 * stop` for one that systemd runs (its unit's stop does the same). Their records go too. Returns the instances it left
 * alone because they are not what was recorded.
 */
export async function stopInstances(
  instances: Instance[],
  options: { checkSocket: boolean; log: Log; paths: StatePaths },
): Promise<Instance[]> {
  const ours: Instance[] = []
  const strangers: Instance[] = []
  await Promise.all(
    instances
      .filter((one) => one.unit)
      .map((one) =>
        stopUnit(one.unit!).catch((error: Error) =>
          options.log('systemctl stop failed', { unit: one.unit, err: { message: error.message } }),
        ),
      ),
  )
  for (const instance of instances.filter((one) => !one.unit)) {
    if (!(await isSameProcess(instance))) continue
    if (options.checkSocket && !(await listensWhereRecorded(instance))) strangers.push(instance)
    else ours.push(instance)
  }
  for (const instance of strangers) {
    options.log('not signalled: the process does not listen where the instance was recorded', {
      pid: instance.pid,
      instance: upstreamOf(instance),
    })
  }
  for (const instance of ours) process.kill(instance.pid, 'SIGTERM')
  const deadline = Date.now() + waits.drainMs
  for (;;) {
    const alive = (await Promise.all(ours.map(isSameProcess))).some(Boolean)
    if (!alive || Date.now() > deadline) break
    await sleep(100)
  }
  for (const instance of ours) {
    if (!(await isSameProcess(instance))) continue
    options.log('instance did not drain in time: killing it', { instance: upstreamOf(instance), pid: instance.pid })
    process.kill(instance.pid, 'SIGKILL')
  }
  for (const instance of instances) {
    if (!strangers.includes(instance)) await removeRecord(options.paths, instance)
  }
  return strangers
}
