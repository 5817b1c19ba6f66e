/**
 * The `start` step under systemd (`--service-manager systemd`): each instance is a unit,
 * `courier-instance@<name>.service` (deploy/systemctl.ts), which systemd starts again when it fails, on the same
 * socket (deploy/instance-socket.ts: the name is picked here, since the unit is named by it). Each instance is
 * recorded first (deploy/instance-record.ts), then its unit started; deploy/instance-run.ts, which the unit runs,
 * records its pid. Not exercised by the tests (no systemd runs as PID 1 where they run); instance-run.ts is.
 */
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { readRecord, writeRecord } from './instance-record.ts'
import { instanceName } from './instance-socket.ts'
import { newInstanceSocket, stopInstances, tailOf, waits, waitListening, type StartOptions } from './instances.ts'
import { isSameProcess, type ProcessIdentity } from './process-identity.ts'
import type { Instance, StatePaths } from './state.ts'
import { startUnit, unitOf } from './systemctl.ts'

/** The process instance-run recorded for `instance`, once it runs. */
async function recordedProcess(paths: StatePaths, instance: Instance, signal: AbortSignal): Promise<ProcessIdentity> {
  const deadline = Date.now() + waits.listeningMs
  while (Date.now() < deadline) {
    signal.throwIfAborted()
    const record = await readRecord(paths, instanceName(instance))
    if (record?.pid !== undefined && record.startTime !== undefined) {
      const identity = { pid: record.pid, startTime: record.startTime }
      if (await isSameProcess(identity)) return identity
    }
    await sleep(100, undefined, { signal })
  }
  throw new Error(
    `${instance.unit} did not start within ${waits.listeningMs} ms (\`journalctl -u ` +
      `${instance.unit}\`); its log ${instance.log} ends with:\n${await tailOf(instance.log)}`,
  )
}

export async function startUnits(options: StartOptions): Promise<Instance[]> {
  const { paths, deploymentId, command, count, logDir, onStarted, signal, log } = options
  await mkdir(logDir, { recursive: true })
  const started: Instance[] = []
  try {
    for (let index = 0; index < count; index += 1) {
      const { name, socket } = await newInstanceSocket(paths)
      const file = path.join(logDir, `instance-${name}.log`)
      const env = { ...command.env, SOCKET_PATH: socket }
      await writeRecord(paths, { name, deploymentId, log: file, command: { ...command, env } })
      // In starting.json before it starts: a deploy killed now leaves a unit that the next deploy stops.
      started.push({ pid: 0, startTime: '', socket, log: file, unit: unitOf(name) })
      await onStarted(started)
      await startUnit(unitOf(name))
    }
    for (const instance of started) {
      Object.assign(instance, await recordedProcess(paths, instance, signal))
      await waitListening(instance, signal)
    }
    await onStarted(started)
    return started
  } catch (error) {
    await stopInstances(started, { checkSocket: false, log, paths })
    throw error
  }
}
