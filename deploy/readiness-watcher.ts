/**
 * The readiness watcher of one state folder, beside nginx. nginx cannot see a frozen instance (the kernel still
 * accepts its connections, and a read time-out short enough to notice would cut pages that legitimately take up to
 * the 10 s render time-out), so this process asks every live instance `GET /api/ready` each second and takes one that
 * failed twice in a row out of the routing (`down` in deployments.conf, nginx reloaded), and puts it back at its
 * first 200. It restarts nothing: that is the service manager's job (docs/running-at-scale.md "As a service").
 *
 *   node deploy/readiness-watcher.ts --state <dir> --listen <nginx's plain address:port>
 *
 * The deploy starts one per state (detached, its identity in <state>/watcher.json, its lines in <state>/watcher.log)
 * and `--stop` stops it; it also ends by itself once the state's nginx is gone.
 */
import { parseArgs } from 'node:util'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { applyRouting, nginxMaster, portOf, routingOf } from './nginx-control.ts'
import { readFile } from 'node:fs/promises'
import { readyStatus } from './instance-socket.ts'
import { identify, isSameProcess, type ProcessIdentity } from './process-identity.ts'
import { readOutOfRotation, readState, saveOutOfRotation, statePaths, writeJsonAtomically } from './state.ts'
import { stateModes, trustStateFolder } from './state-trust.ts'

export const watcherTimings = Object.freeze({
  /** How often each instance is asked. */
  intervalMs: 1_000,
  /** An answer slower than this is a failure (a ready instance answers in a millisecond; under load, tens). */
  answerTimeoutMs: 900,
  /** Failures in a row that take an instance out: one could be a blip, two seconds of silence are not. */
  failuresToTakeOut: 2,
})

function log(message: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), msg: message, ...fields })}\n`)
}

async function isReady(server: string): Promise<boolean> {
  return (await readyStatus(server, watcherTimings.answerTimeoutMs)) === 200
}

async function watch(stateDir: string, listen: string, signal: AbortSignal): Promise<void> {
  const paths = statePaths(stateDir)
  const port = portOf(listen)
  const failures = new Map<string, number>()
  let previous: string[] = []
  log('readiness watcher started', { state: stateDir, pid: process.pid })
  while (!signal.aborted) {
    const roundStarted = Date.now()
    if ((await nginxMaster(paths.nginx, port)) === undefined) return log('nginx of the state is gone: watcher exits')
    const state = await readState(paths)
    const servers = routingOf(state, new Set()).flatMap((deployment) => deployment.servers)
    const before = await readOutOfRotation(paths)
    const out = new Set([...before].filter((server) => servers.includes(server)))
    const answers = await Promise.all(servers.map(isReady))
    for (const [index, server] of servers.entries()) {
      if (answers[index]) {
        failures.delete(server)
        if (out.delete(server)) log('instance answers again: back in rotation', { server })
      } else {
        const count = (failures.get(server) ?? 0) + 1
        failures.set(server, count)
        if (count >= watcherTimings.failuresToTakeOut && !out.has(server)) {
          out.add(server)
          log('instance not ready: out of rotation', { server, failures: count })
        }
      }
    }
    for (const server of failures.keys()) if (!servers.includes(server)) failures.delete(server)
    // An instance that exited is no longer in the state (readState drops it): out of the routing too.
    for (const server of previous) if (!servers.includes(server)) log('instance exited: out of rotation', { server })
    previous = servers
    const changed = out.size !== before.size || [...out].some((server) => !before.has(server))
    if (changed) await saveOutOfRotation(paths, out)
    // Under the routing lock, from the state as it is then (a deploy may have changed it); nginx is reloaded only
    // when the routing differs from what it has.
    await applyRouting(paths, port).catch((error: Error) =>
      log('routing not applied', { err: { message: error.message } }),
    )
    // Each second from the start of the last round: a round that waited for a silent instance does not slow the next.
    const rest = Math.max(100, watcherTimings.intervalMs - (Date.now() - roundStarted))
    await sleep(rest, undefined, { signal }).catch(() => undefined)
  }
  log('readiness watcher stopped')
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const { values } = parseArgs({ options: { state: { type: 'string' }, listen: { type: 'string' } } })
  if (!values.state || !values.listen) {
    process.stderr.write('usage: node deploy/readiness-watcher.ts --state <dir> --listen <address:port>\n')
    process.exit(1)
  }
  const stop = new AbortController()
  for (const name of ['SIGTERM', 'SIGINT'] as const) process.on(name, () => stop.abort())
  // Whoever started it (the deploy, or a service manager: docs/running-at-scale.md "As a service"), it records itself,
  // so that a deploy finds it running and `--stop` stops it; a second watcher of the same state leaves.
  process.umask(stateModes.umask)
  const paths = statePaths(path.resolve(values.state))
  // It writes nginx's routing from the state and reloads nginx: from a state another user could write, not at all.
  await trustStateFolder(paths.dir)
  const recorded = await readFile(paths.watcherFile, 'utf8').then(
    (text) => JSON.parse(text) as ProcessIdentity,
    () => undefined,
  )
  if (recorded && recorded.pid !== process.pid && (await isSameProcess(recorded))) {
    log('another watcher runs for this state: leaving', { pid: recorded.pid })
  } else {
    await writeJsonAtomically(paths.watcherFile, await identify(process.pid))
    await watch(paths.dir, values.listen, stop.signal)
  }
}
