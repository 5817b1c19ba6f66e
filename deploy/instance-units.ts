/**
 * The `start` step under systemd (`--service-manager systemd`): each instance is a unit,
 * `courier-instance@<port>.service` (deploy/systemctl.ts), which systemd starts again when it fails. The port is picked
 * here, since the unit is named by it and an instance started again must listen where nginx sends: one the system gives
 * a socket bound to port 0, closed at once, that no other instance of the state is recorded on. Another process could
 * take it in between; the instance then fails to listen and the deploy fails, naming it. Each instance is recorded
 * first (deploy/instance-record.ts), then its unit started; deploy/instance-run.ts, which the unit runs, records its
 * pid. Not exercised by the tests (no systemd runs as PID 1 where they run); instance-run.ts is.
 */
import { mkdir } from 'node:fs/promises'
import net from 'node:net'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { readRecord, writeRecord } from './instance-record.ts'
import { stopInstances, tailOf, waits, type StartOptions } from './instances.ts'
import { isSameProcess, listensOn, type ProcessIdentity } from './process-identity.ts'
import type { Instance, StatePaths } from './state.ts'
import { startUnit, unitOf } from './systemctl.ts'

function portTheSystemGives(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

async function pickPort(paths: StatePaths): Promise<number> {
  for (;;) {
    const port = await portTheSystemGives()
    if (!(await readRecord(paths, port))) return port
  }
}

/** The process instance-run recorded for `instance`, once it listens on the instance's port. */
async function recordedProcess(paths: StatePaths, instance: Instance, signal: AbortSignal): Promise<ProcessIdentity> {
  const deadline = Date.now() + waits.listeningMs
  while (Date.now() < deadline) {
    signal.throwIfAborted()
    const record = await readRecord(paths, instance.port)
    if (record?.pid !== undefined && record.startTime !== undefined) {
      const identity = { pid: record.pid, startTime: record.startTime }
      if ((await listensOn(identity.pid, instance.port)) && (await isSameProcess(identity))) return identity
    }
    await sleep(100, undefined, { signal })
  }
  throw new Error(
    `${instance.unit} did not listen on port ${instance.port} within ${waits.listeningMs} ms (\`journalctl -u ` +
      `${instance.unit}\`); its log ${instance.log} ends with:\n${await tailOf(instance.log)}`,
  )
}

export async function startUnits(options: StartOptions): Promise<Instance[]> {
  const { paths, deploymentId, command, count, logDir, onStarted, signal, log } = options
  await mkdir(logDir, { recursive: true })
  const started: Instance[] = []
  try {
    for (let index = 0; index < count; index += 1) {
      const port = await pickPort(paths)
      const file = path.join(logDir, `instance-${port}.log`)
      const env = { ...command.env, PORT: String(port) }
      await writeRecord(paths, { port, deploymentId, log: file, command: { ...command, env } })
      // In starting.json before it starts: a deploy killed now leaves a unit that the next deploy stops.
      started.push({ pid: 0, startTime: '', port, log: file, unit: unitOf(port) })
      await onStarted(started)
      await startUnit(unitOf(port))
    }
    for (const instance of started) Object.assign(instance, await recordedProcess(paths, instance, signal))
    await onStarted(started)
    return started
  } catch (error) {
    await stopInstances(started, { checkPort: false, log, paths })
    throw error
  }
}
