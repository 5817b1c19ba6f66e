/**
 * One instance of a state, in the foreground, as the deploy started it:
 *
 *   node deploy/instance-run.ts --state <dir> --instance <name>
 *
 * runs what `<state>/instances/<name>.json` records for that instance (deploy/instance-record.ts: the release's server,
 * its Node, flags and environment, SOCKET_PATH the socket nginx sends to), its output appended to the instance's log. It
 * becomes that server (process.execve: the pid systemd, a shell or the deploy watches is the server's), after recording
 * its pid, so the state (state.json's readers, the readiness watcher, `--stop`) knows the process that now serves the
 * instance (a stale socket file is the server's to remove: src/runtime/socket-path.ts). `--port <port>` names an
 * instance an older deploy started on a port. systemd's `courier-instance@.service` runs it (docs/running-at-scale.md
 * "As a service"), and a person can, to start again an instance that exited.
 *
 * Refuses, exit 78 (EX_CONFIG, the unit's RestartPreventExitStatus: starting it again changes nothing), a name that
 * is no instance of a live or starting deployment of the state (InstanceNotInStateError), one whose instance runs
 * (InstanceRunningError) and a state folder another user could change (UntrustedPathError, deploy/state-trust.ts).
 */
import path from 'node:path'
import { parseArgs } from 'node:util'
import { readRecord, recordFile, writeRecord, type InstanceRecord } from './instance-record.ts'
import { instanceName, instanceNamePattern } from './instance-socket.ts'
import { isSameProcess, startTimeOf } from './process-identity.ts'
import { readStarting, readStateAsWritten, statePaths, type Instance, type StatePaths } from './state.ts'
import { stateModes, trustStateFolder, UntrustedPathError } from './state-trust.ts'

export class InstanceNotInStateError extends Error {
  override name = 'InstanceNotInStateError'
}

export class InstanceRunningError extends Error {
  override name = 'InstanceRunningError'
}

/** The record of instance `name`, once it is known to be an instance of the state that is not running. */
async function recordToRun(paths: StatePaths, name: string): Promise<InstanceRecord> {
  const record = await readRecord(paths, name)
  if (!record) {
    throw new InstanceNotInStateError(
      `${name} is no instance of the state ${paths.dir}: ${recordFile(paths, name)} does not exist ` +
        '(the deploy records each instance it starts there)',
    )
  }
  const named = (one: Instance) => instanceName(one) === name
  const { deployments } = await readStateAsWritten(paths)
  const live = deployments.some((one) => one.id === record.deploymentId && one.instances.some(named))
  const starting = (await readStarting(paths)).some(named)
  if (!live && !starting) {
    throw new InstanceNotInStateError(
      `${name} was an instance of deployment ${record.deploymentId}, which is not live in ${paths.stateFile} ` +
        'nor being started by a deploy',
    )
  }
  if (record.pid !== undefined && record.startTime !== undefined) {
    if (await isSameProcess({ pid: record.pid, startTime: record.startTime })) {
      throw new InstanceRunningError(`the instance ${name} runs already (pid ${record.pid})`)
    }
  }
  return record
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const { values } = parseArgs({
    options: { state: { type: 'string' }, instance: { type: 'string' }, port: { type: 'string' } },
  })
  const name = values.instance ?? values.port
  if (!values.state || name === undefined || !instanceNamePattern.test(name)) {
    process.stderr.write('usage: node deploy/instance-run.ts --state <dir> --instance <name>\n')
    process.exit(2)
  }
  process.umask(stateModes.umask)
  const paths = statePaths(path.resolve(values.state))
  let record: InstanceRecord
  try {
    // The record is a command line to run: from a state another user could write, it would be theirs.
    await trustStateFolder(paths.dir)
    record = await recordToRun(paths, name)
  } catch (error) {
    const refused = [InstanceNotInStateError, InstanceRunningError, UntrustedPathError]
    if (!(error instanceof Error) || !refused.some((kind) => error instanceof kind)) throw error
    process.stderr.write(`${error.name}: ${error.message}\n`)
    process.exit(78)
  }
  // execve keeps the pid and its start time: what is recorded now is the server's identity.
  await writeRecord(paths, { ...record, pid: process.pid, startTime: (await startTimeOf(process.pid))! })
  const { node, args, cwd, env } = record.command
  if (!process.execve) throw new Error(`process.execve is missing from Node ${process.version}: run the pinned Node`)
  process.chdir(cwd)
  // The shell opens the log for appending as the instance's output, then becomes the server in its turn, with the
  // environment recorded and nothing of its own (dash exports PWD).
  const shell = 'unset PWD; log=$1; shift; exec "$@" >>"$log" 2>&1'
  process.execve('/bin/sh', ['sh', '-c', shell, 'sh', record.log, node, ...args], env)
}
