/**
 * Steps 3 and 4 of a deploy, and the end of every instance: started as `npm start` starts the server (package.json's
 * `start`: its variables and Node's flags) on the release's own Node (its node_modules/.bin/node), each on a loopback port the system gives it (PORT=0:
 * no port is picked here and freed for the instance to take, which another process could take first), learnt from its
 * sockets, with its log in the release folder; ready when `/api/ready` answers 200; stopped with SIGTERM (it drains),
 * only when the pid, its start time and, for an instance recorded in the state, the port it listens on are the ones
 * recorded.
 */
import { spawn } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { access, mkdir, readFile, rename } from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { readStartCommand } from '../src/build/start-command.ts'
import { identify, isSameProcess, listeningPorts, listensOn } from './process-identity.ts'
import type { Release } from './release.ts'
import type { Instance } from './state.ts'

/** Every wait here, bounded. */
const waits = Object.freeze({
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

/** The Node a release pins and holds (node_modules/.bin/node), or this script's for a project without one. */
async function nodeOf(release: Release): Promise<string> {
  const pinned = path.join(release.root, 'node_modules', '.bin', 'node')
  return access(pinned).then(() => pinned, () => process.execPath)
}

/**
 * The port an instance listens on, as soon as it does (its sockets in /proc, whatever its log level says); `besides`:
 * a port it also listens on that is not the site's (METRICS_PORT).
 */
async function portOf(instance: Instance, besides: number | undefined, signal: AbortSignal): Promise<number> {
  const deadline = Date.now() + waits.listeningMs
  const failure = async (what: string) =>
    new Error(
      `an instance (pid ${instance.pid}) ${what}; its log ${instance.log} ends with:\n${await tailOf(instance.log)}`,
    )
  while (Date.now() < deadline) {
    signal.throwIfAborted()
    const [port] = [...(await listeningPorts(instance.pid))].filter((one) => one !== besides)
    if (port !== undefined) return port
    if (!(await isSameProcess(instance))) throw await failure('exited before it listened')
    await sleep(50, undefined, { signal })
  }
  throw await failure(`did not listen within ${waits.listeningMs} ms`)
}

/**
 * Starts `count` instances of `release`, each with `env` (deploy/instance-env.ts) and PORT=0, logging into `logDir`
 * (`instance-pid-<pid>.log` until its port is known, then `instance-<port>.log`). Should one not come to listen, all
 * are stopped before the error is thrown.
 */
export async function startInstances(
  release: Release,
  count: number,
  env: Record<string, string>,
  logDir: string,
  /** Told of the instances as soon as they run, and again once their ports are known (the deploy records them). */
  onStarted: (started: Instance[]) => Promise<void>,
  signal: AbortSignal,
  log: Log,
): Promise<Instance[]> {
  const start = await readStartCommand(release.root)
  const entry = path.join(release.distDir, 'node', 'server.js')
  const node = await nodeOf(release)
  await mkdir(logDir, { recursive: true })
  const started: Instance[] = []
  for (let index = 0; index < count; index += 1) {
    const file = path.join(logDir, `instance-starting-${index}-${Date.now()}.log`)
    const output = openSync(file, 'a')
    const child = spawn(node, [...start.nodeArgs, entry], {
      cwd: release.root,
      env: { ...start.env, ...env, PORT: '0' },
      // A process group of its own: Ctrl+C in the deploy's terminal reaches the deploy, which decides.
      detached: true,
      stdio: ['ignore', output, output],
    })
    closeSync(output)
    child.unref()
    const identity = await identify(child.pid)
    const named = path.join(logDir, `instance-pid-${identity.pid}.log`)
    await rename(file, named)
    // Port 0 until it listens: recorded now, so that an interrupted deploy knows what to stop.
    started.push({ port: 0, log: named, ...identity })
    await onStarted(started)
  }
  try {
    const metricsPort = env.METRICS_PORT ? Number(env.METRICS_PORT) : undefined
    const ports = await Promise.all(started.map((instance) => portOf(instance, metricsPort, signal)))
    const listening = await Promise.all(
      started.map(async (instance, index) => {
        const named = path.join(logDir, `instance-${ports[index]}.log`)
        // The instance keeps writing to its open file: a rename within the folder does not disturb it.
        await rename(instance.log, named)
        return { ...instance, port: ports[index]!, log: named }
      }),
    )
    await onStarted(listening)
    return listening
  } catch (error) {
    await stopInstances(started, { checkPort: false, log })
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
        `the instance on port ${instance.port} exited before it was ready; its log ${instance.log} ends with:\n` +
          (await tailOf(instance.log)),
      )
    }
    const status = await fetch(
      `http://127.0.0.1:${instance.port}/api/ready`,
      { signal: AbortSignal.timeout(2_000) },
    ).then(
      (response) => response.status,
      () => 0,
    )
    if (status === 200) return
    await sleep(100, undefined, { signal })
  }
  throw new Error(
    `the instance on port ${instance.port} was not ready within ${waits.readyMs} ms; ` +
      `its log ${instance.log} ends with:\n${await tailOf(instance.log)}`,
  )
}

export async function waitAllReady(instances: Instance[], signal: AbortSignal): Promise<void> {
  await Promise.all(instances.map((one) => waitReady(one, signal)))
}

/**
 * SIGTERM to each instance that is still the process recorded (pid and start time; with `checkPort`, listening on its
 * port too: an instance from the state file), then SIGKILL to those still running after `waits.drainMs`. Returns the
 * instances it left alone because they are not what was recorded.
 */
export async function stopInstances(
  instances: Instance[],
  options: { checkPort: boolean; log: Log },
): Promise<Instance[]> {
  const ours: Instance[] = []
  const strangers: Instance[] = []
  for (const instance of instances) {
    if (!(await isSameProcess(instance))) continue
    if (options.checkPort && !(await listensOn(instance.pid, instance.port))) strangers.push(instance)
    else ours.push(instance)
  }
  for (const instance of strangers) {
    options.log('not signalled: the process does not listen on the recorded port', {
      pid: instance.pid,
      port: instance.port,
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
    options.log('instance did not drain in time: killing it', { port: instance.port, pid: instance.pid })
    process.kill(instance.pid, 'SIGKILL')
  }
  return strangers
}
