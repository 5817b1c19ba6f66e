/**
 * What one instance of a state runs: `<state>/instances/<name>.json`, written by the deploy for each instance it starts
 * (its deployment, its log, the command and environment it runs with) and, for the process that runs it, by whoever
 * started it (the deploy, or deploy/instance-run.ts when systemd or a person starts the instance again). state.json
 * says which instances a deployment has; this file says which process runs one now. The file holds the instances'
 * environment (courier.env's secrets too): it is readable by its owner only.
 */
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { instanceName } from './instance-socket.ts'
import type { ProcessIdentity } from './process-identity.ts'
import type { Instance, StatePaths } from './state.ts'

/** How an instance starts: as `npm start` starts the server, on the release's Node, in its folder, with its
 * variables. */
export interface InstanceCommand {
  node: string
  args: string[]
  cwd: string
  env: Record<string, string>
}

export interface InstanceRecord extends Partial<ProcessIdentity> {
  /** deploy/instance-socket.ts `instanceName`: its socket's name (an older state's: its port). */
  name: string
  deploymentId: string
  /** The file its output is appended to. */
  log: string
  /** With its SOCKET_PATH (an older state's: PORT): started again, the instance listens where nginx sends. */
  command: InstanceCommand
}

export function recordFile(paths: StatePaths, name: string): string {
  return path.join(paths.instances, `${name}.json`)
}

export async function writeRecord(paths: StatePaths, record: InstanceRecord): Promise<void> {
  await mkdir(paths.instances, { recursive: true, mode: 0o700 })
  const file = recordFile(paths, record.name)
  await writeFile(`${file}.${process.pid}.next`, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 })
  await rename(`${file}.${process.pid}.next`, file)
}

export async function readRecord(paths: StatePaths, name: string): Promise<InstanceRecord | undefined> {
  const text = await readFile(recordFile(paths, name), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined
    throw error
  })
  if (text === undefined) return undefined
  // An older state's record is keyed by its port.
  const record = JSON.parse(text) as InstanceRecord & { port?: number }
  return { ...record, name: record.name ?? String(record.port) }
}

/** `instance` of `deploymentId` as the process its record names now (the same one, unless it was started again). */
export async function runningNow(paths: StatePaths, deploymentId: string, instance: Instance): Promise<Instance> {
  const record = await readRecord(paths, instanceName(instance))
  if (record?.deploymentId !== deploymentId || record.pid === undefined || record.startTime === undefined) {
    return instance
  }
  return { ...instance, pid: record.pid, startTime: record.startTime }
}

/** Removes the record of an instance the deploy stopped: one of its unit, or one that names the same process. */
export async function removeRecord(paths: StatePaths, instance: Instance): Promise<void> {
  const record = await readRecord(paths, instanceName(instance)).catch(() => undefined)
  if (!record) return
  if (instance.unit || (record.pid === instance.pid && record.startTime === instance.startTime)) {
    await rm(recordFile(paths, record.name), { force: true })
  }
}
