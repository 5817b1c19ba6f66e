/**
 * `npm run deploy`: a rolling deploy of Courier behind nginx on one machine (docs/running-at-scale.md "Rolling
 * deploy"), and the `--stop` and `--reload` of what it runs. Runs on the pinned Node (package.json's `deploy` script;
 * Node runs this TypeScript itself). What each step does is deploy/deploy-steps.ts; the command line,
 * deploy/options.ts; the layout of a state folder, deploy/state.ts.
 *
 * Every line on stdout is one JSON object (the build's own output goes to stderr). Exit 0 when done, 1 on a failure
 * (the last line: `deploy failed` and why, with a `code` for a state, env file or key another user could change or
 * read: deploy/state-trust.ts), 130 when interrupted (SIGINT or SIGTERM: what the deploy had started is
 * undone first, see deploy-steps.ts).
 */
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { recordedFrontDoor, stopLeftoverInstances } from './before-deploy.ts'
import { deploy } from './deploy-steps.ts'
import { checkKeyPair } from './instance-env.ts'
import { stopInstances } from './instances.ts'
import { applyRouting, portOf, stopNginx } from './nginx-control.ts'
import { readCommand } from './options.ts'
import { instancesToStop, readState, saveState, statePaths, withLock, type StatePaths } from './state.ts'
import { stateModes, trustStateFolder, UntrustedPathError } from './state-trust.ts'
import { stopWatcher } from './watcher-control.ts'

const projectRoot = path.resolve(import.meta.dirname, '..')

function log(message: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), msg: message, ...fields })}\n`)
}

/** Stops nginx, the watcher and every instance of the state (each only if it is the process the state recorded). */
async function stopAll(paths: StatePaths, signal: AbortSignal): Promise<void> {
  // Waits for a deploy in progress to finish or undo itself (its undo is bounded), then holds the state.
  await withLock(paths, 'deploy', 120_000, async () => {
    await stopLeftoverInstances(paths, log)
    const frontDoor = await recordedFrontDoor(paths)
    const instances = await instancesToStop(paths)
    await stopWatcher(paths)
    const nginxStopped = frontDoor ? await stopNginx(paths.nginx, portOf(frontDoor.listen)) : false
    const strangers = await stopInstances(instances, { checkSocket: true, log, paths })
    await saveState(paths, { deployments: [] })
    await rm(paths.instances, { recursive: true, force: true })
    log('stopped', {
      nginx: nginxStopped,
      instances: instances.length - strangers.length,
      notSignalled: strangers.length,
    })
  })
  signal.throwIfAborted()
}

/** nginx writes its configuration again from the state and reloads, re-reading the certificate files. */
async function reload(paths: StatePaths): Promise<void> {
  const frontDoor = await recordedFrontDoor(paths)
  if (!frontDoor) throw new Error(`nothing deployed in ${paths.dir} (no front-door.json): deploy first`)
  if (frontDoor.tls) await checkKeyPair(frontDoor.tls)
  const state = await readState(paths)
  if (state.deployments.length === 0) throw new Error(`no live deployment in ${paths.dir}: deploy first`)
  // Returns once nginx's old workers have exited: every connection made after this command meets the new files.
  await applyRouting(paths, portOf(frontDoor.listen), { state, frontDoor, drainOldWorkers: true })
  log('nginx reloaded', { certificate: frontDoor.tls?.certificate })
}

const interrupt = new AbortController()
for (const name of ['SIGINT', 'SIGTERM'] as const) {
  process.on(name, () => {
    if (interrupt.signal.aborted) return log('still stopping what the deploy started: wait')
    log('interrupted', { signal: name })
    interrupt.abort(new Error(`interrupted by ${name}`))
  })
}

try {
  const command = readCommand(process.argv.slice(2), projectRoot)
  // Before the first write: what the deploy, nginx, the build and the instances write is the user's alone.
  process.umask(stateModes.umask)
  const paths = statePaths(command.state)
  // Before anything reads the state (all three commands): another user's folder is refused, nothing started.
  await trustStateFolder(paths.dir)
  if (command.kind === 'stop') await stopAll(paths, interrupt.signal)
  else if (command.kind === 'reload') await reload(paths)
  else await deploy(paths, command, interrupt.signal, log)
} catch (error) {
  if (interrupt.signal.aborted) {
    log('deploy interrupted: everything it started is stopped')
    process.exitCode = 130
  } else {
    const code = error instanceof UntrustedPathError ? error.code : undefined
    log('deploy failed', { error: (error as Error).message, code })
    process.exitCode = 1
  }
}
