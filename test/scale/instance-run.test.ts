/**
 * deploy/instance-run.ts, what systemd's `courier-instance@.service` runs (docs/running-at-scale.md "As a service"),
 * started by hand on the state a real deploy made: an instance of the live deployment dies (SIGKILL, as a crash);
 * instance-run for its port, started with nothing but PATH, runs the same release with the same environment on that
 * port, as the very process that was started (the pid a service manager watches is the server's), its output appended
 * to the instance's log; the state knows it (nginx routes to it again, `--stop` stops it). A port that is no instance
 * of the state and a port whose instance runs are refused, named, with exit 78. systemd itself cannot run here (it is
 * not PID 1): production-path.test.ts checks the unit's text with `systemd-analyze verify`.
 */
import { spawn, spawnSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { defaultDistDir } from '../../config/env.ts'
import { isSameProcess, listensOn, startTimeOf } from '../../deploy/process-identity.ts'
import { projectRoot } from '../reliability/server-process.ts'
import { firstDeploy, readDeployState, runDeploy, stateFolder } from './deploy-run.ts'
import { freePort } from './processes.ts'

const instanceRun = path.join(projectRoot, 'deploy', 'instance-run.ts')
const state = await stateFolder(t, { LOG_LEVEL: 'info', COURIER_TEST_MARK: 'from-courier-env' })
const dist = path.join(projectRoot, defaultDistDir(false))
const { run: deployed } = await firstDeploy(1, ([listen]) => [
  '--state',
  state,
  '--listen',
  `127.0.0.1:${listen}`,
  '--instances',
  '2',
  '--dist',
  dist,
])
if (deployed.code !== 0) throw new Error(`the deploy failed:\n${deployed.output}`)
const [deployment] = (await readDeployState(state)).deployments
const [crashed, sibling] = deployment!.instances
if (!crashed || !sibling) throw new Error('the deploy recorded fewer than two instances')

/** Polls `check` every 100 ms for up to 30 s. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    if (await check()) return
    await sleep(100)
  }
  throw new Error(`timed out waiting for ${what}`)
}

/** instance-run as a person or systemd starts it: the caller's environment is PATH alone. */
const runArgs = (forPort: number) => [instanceRun, '--state', state, '--port', String(forPort)]
const callerEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin' }

/** A process's environment, without what tap's process tracking adds to every process a spawn under the test starts
 * (`NODE_OPTIONS`, `_TAPJS_*`): the deploy's own spawns get them, an execve from a recorded environment does not. */
const environOf = async (pid: number) =>
  Object.fromEntries(
    (await readFile(`/proc/${pid}/environ`, 'utf8'))
      .split('\0')
      .filter((line) => line !== '' && !line.startsWith('NODE_OPTIONS=') && !line.startsWith('_TAPJS_'))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  )

t.test('a port that is no instance of the state, or whose instance runs: refused, named, exit 78', async (t) => {
  const stranger = await freePort()
  const refused = spawnSync(process.execPath, runArgs(stranger), { env: callerEnv, encoding: 'utf8' })
  t.equal(refused.status, 78)
  t.match(refused.stderr, `InstanceNotInStateError: port ${stranger} is no instance of the state ${state}`)
  const running = spawnSync(process.execPath, runArgs(crashed.port), { env: callerEnv, encoding: 'utf8' })
  t.equal(running.status, 78)
  t.match(
    running.stderr,
    `InstanceRunningError: the instance on port ${crashed.port} runs already (pid ${crashed.pid})`,
  )
})

t.test(
  'an instance that died, started again by instance-run: same release, environment and port, known to the state',
  async (t) => {
    const logBefore = await readFile(crashed.log, 'utf8')
    process.kill(crashed.pid, 'SIGKILL')
    await until('the instance to die', async () => (await startTimeOf(crashed.pid)) === undefined)
    const routing = () => readFile(path.join(state, 'nginx', 'deployments.conf'), 'utf8')
    await until('nginx to stop routing to it', async () => !(await routing()).includes(`127.0.0.1:${crashed.port} `))

    const child = spawn(process.execPath, runArgs(crashed.port), { env: callerEnv, detached: true, stdio: 'ignore' })
    child.unref()
    const restarted = { pid: child.pid!, startTime: (await startTimeOf(child.pid!))! }
    const { pid } = restarted
    t.teardown(async () => {
      if (await isSameProcess(restarted)) process.kill(pid, 'SIGKILL')
    })
    await until('it to answer /api/ready', () =>
      fetch(`http://127.0.0.1:${crashed.port}/api/ready`).then(
        (answer) => answer.status === 200,
        () => false,
      ),
    )
    t.ok(await isSameProcess(restarted), 'the process started is still the one that answers (it became the server)')
    t.ok(await listensOn(pid, crashed.port), 'the process started is the server, on the port nginx sends to')
    const home = await (await fetch(`http://127.0.0.1:${crashed.port}/`)).text()
    t.match(home, `data-dpl-id="${deployment!.id}"`, "it serves the live deployment's build")

    const [environ, siblingEnviron] = await Promise.all([environOf(pid), environOf(sibling.pid)])
    t.equal(environ.PORT, String(crashed.port))
    t.equal(environ.COURIER_TEST_MARK, 'from-courier-env', "the state's courier.env")
    t.same(
      { ...environ, PORT: 'any' },
      { ...siblingEnviron, PORT: 'any' },
      "the environment the deploy gave its sibling, not the caller's",
    )
    const commandLine = async (of: number) => readFile(`/proc/${of}/cmdline`, 'utf8')
    t.equal(
      await commandLine(pid),
      await commandLine(sibling.pid),
      "its sibling's command: the release's Node, flags and server",
    )
    const logAfter = await readFile(crashed.log, 'utf8')
    t.ok(
      logAfter.startsWith(logBefore) && logAfter.length > logBefore.length,
      `its output appended to ${path.basename(crashed.log)}`,
    )

    await until('nginx to route to it again', async () =>
      new RegExp(`server 127\\.0\\.0\\.1:${crashed.port} max_fails=1 fail_timeout=2s;`).test(await routing()),
    )
    t.pass("the readiness watcher, from the state, puts it back in nginx's routing")

    const stopped = await runDeploy(['--stop', '--state', state])
    t.equal(stopped.code, 0)
    t.match(stopped.lines.at(-1), { msg: 'stopped', instances: 2, notSignalled: 0 })
    t.notOk(await isSameProcess(restarted), '`--stop` stopped it: nothing left running')
  },
)
