/** Starting and stopping a state's readiness watcher (deploy/readiness-watcher.ts), one per state. */
import { spawn } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { readFile, rm } from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { identify, isSameProcess, type ProcessIdentity } from './process-identity.ts'
import { writeJsonAtomically, type StatePaths } from './state.ts'

const watcherScript = path.join(import.meta.dirname, 'readiness-watcher.ts')

async function recordedWatcher(paths: StatePaths): Promise<ProcessIdentity | undefined> {
  const text = await readFile(paths.watcherFile, 'utf8').catch(() => undefined)
  if (text === undefined) return undefined
  const identity = JSON.parse(text) as ProcessIdentity
  return (await isSameProcess(identity)) ? identity : undefined
}

/** Starts the watcher unless the one recorded still runs (the same pid and start time). */
export async function ensureWatcher(paths: StatePaths, listen: string): Promise<'started' | 'running'> {
  if (await recordedWatcher(paths)) return 'running'
  const output = openSync(paths.watcherLog, 'a')
  const child = spawn(process.execPath, [watcherScript, '--state', paths.dir, '--listen', listen], {
    cwd: paths.dir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    detached: true,
    stdio: ['ignore', output, output],
  })
  closeSync(output)
  child.unref()
  // It records itself too (readiness-watcher.ts); written here as well, so a deploy right after this one finds it.
  await writeJsonAtomically(paths.watcherFile, await identify(child.pid))
  return 'started'
}

/** SIGTERM to the recorded watcher if it is still that process; waits up to 5 s for it to exit. */
export async function stopWatcher(paths: StatePaths): Promise<boolean> {
  const watcher = await recordedWatcher(paths)
  await rm(paths.watcherFile, { force: true })
  if (!watcher) return false
  process.kill(watcher.pid, 'SIGTERM')
  const deadline = Date.now() + 5_000
  while ((await isSameProcess(watcher)) && Date.now() < deadline) await sleep(50)
  return true
}
