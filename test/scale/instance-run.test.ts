/**
 * deploy/instance-run.ts, what systemd's `courier-instance@.service` runs (docs/running-at-scale.md "As a service"),
 * started by hand on the state a real deploy made: an instance of the live deployment dies (SIGKILL, as a crash);
 * instance-run for it, started with nothing but PATH, runs the same release with the same environment on the same
 * socket (its stale file left by the crash removed), as the very process that was started (the pid a service manager
 * watches is the server's), its output appended to the instance's log; the state knows it (nginx routes to it again,
 * `--stop` stops it). A name that is no instance of the state and an instance that runs are refused, named, with exit
 * 78. systemd itself cannot run here (it is
 * not PID 1): production-path.test.ts checks the unit's text with `systemd-analyze verify`.
 */
import { spawn, spawnSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { defaultDistDir } from '../../config/env.ts'
import { instanceName } from '../../deploy/instance-socket.ts'
import { isSameProcess, listensOnSocket, startTimeOf } from '../../deploy/process-identity.ts'
import { projectRoot } from '../reliability/server-process.ts'
import { firstDeploy, readDeployState, runDeploy, stateFolder } from './deploy-run.ts'
import { getHttp1 } from './answers.ts'

const instanceRun = path.join(projectRoot, 'deploy', 'instance-run.ts')
const state = await stateFolder(t, {
  LOG_LEVEL: 'info',
  COURIER_TEST_MARK: 'from-courier-env',
  REVALIDATE_TOKEN: 'x7Kp2mQ9vR4tL8wZ3nB6yH1jF5cD0sAe',
})
const dist = path.join(projectRoot, defaultDistDir(false))
const { ports, run: deployed } = await firstDeploy(1, ([listen]) => [
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
const crashedName = instanceName(crashed)
const upstream = `unix:${crashed.socket}`

/** Polls `check` every 100 ms for up to 30 s. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    if (await check()) return
    await sleep(100)
  }
  throw new Error(`timed out waiting for ${what}`)
}

/** instance-run as a person or systemd starts it: the caller's environment is PATH alone. */
const runArgs = (name: string) => [instanceRun, '--state', state, '--instance', name]
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

t.test('a name that is no instance of the state, or whose instance runs: refused, named, exit 78', async (t) => {
  const refused = spawnSync(process.execPath, runArgs('0badc0de'), { env: callerEnv, encoding: 'utf8' })
  t.equal(refused.status, 78)
  t.match(refused.stderr, `InstanceNotInStateError: 0badc0de is no instance of the state ${state}`)
  const running = spawnSync(process.execPath, runArgs(crashedName), { env: callerEnv, encoding: 'utf8' })
  t.equal(running.status, 78)
  t.match(running.stderr, `InstanceRunningError: the instance ${crashedName} runs already (pid ${crashed.pid})`)
  const unusable = spawnSync(process.execPath, runArgs('../x'), { env: callerEnv, encoding: 'utf8' })
  t.equal(unusable.status, 2, 'a name that could leave the instances folder: usage')
})

t.test("through nginx, a client's own X-Forwarded-For is not its address (TRUST_PROXY=1 on the socket)", async (t) => {
  // 30 wrong tokens, each claiming another address: believed, each would be a new client with a budget of its own (30
  // answers 401); as nginx reports them, one client with one budget per instance (2 instances, no Redis: 20 at most).
  const statuses: number[] = []
  for (let index = 0; index < 30; index += 1) {
    const answer = await fetch(`http://127.0.0.1:${ports[0]}/api/revalidate`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer not-the-token-of-this-site',
        'content-type': 'application/json',
        'x-forwarded-for': `203.0.113.${index + 1}`,
      },
      body: JSON.stringify({ paths: ['/'] }),
    })
    await answer.arrayBuffer()
    statuses.push(answer.status)
  }
  const refused = statuses.filter((status) => status === 401).length
  t.ok(refused <= 20, `at most 20 answers 401 (${refused})`)
  t.equal(refused + statuses.filter((status) => status === 429).length, 30, 'the rest 429')
})

t.test(
  'an instance that died, started again by instance-run: same release, environment and socket, known to the state',
  async (t) => {
    const logBefore = await readFile(crashed.log, 'utf8')
    process.kill(crashed.pid, 'SIGKILL')
    await until('the instance to die', async () => (await startTimeOf(crashed.pid)) === undefined)
    const routing = () => readFile(path.join(state, 'nginx', 'deployments.conf'), 'utf8')
    await until('nginx to stop routing to it', async () => !(await routing()).includes(`${upstream} `))

    const child = spawn(process.execPath, runArgs(crashedName), { env: callerEnv, detached: true, stdio: 'ignore' })
    child.unref()
    const restarted = { pid: child.pid!, startTime: (await startTimeOf(child.pid!))! }
    const { pid } = restarted
    t.teardown(async () => {
      if (await isSameProcess(restarted)) process.kill(pid, 'SIGKILL')
    })
    await until('it to answer /api/ready', () =>
      getHttp1(upstream, '/api/ready', {}).then(
        (answer) => answer.status === 200,
        () => false,
      ),
    )
    t.ok(await isSameProcess(restarted), 'the process started is still the one that answers (it became the server)')
    t.ok(await listensOnSocket(pid, crashed.socket!), 'the process started is the server, on the socket nginx sends to')
    const home = (await getHttp1(upstream, '/', {})).wire.toString()
    t.match(home, `data-dpl-id="${deployment!.id}"`, "it serves the live deployment's build")

    const [environ, siblingEnviron] = await Promise.all([environOf(pid), environOf(sibling.pid)])
    t.equal(environ.SOCKET_PATH, crashed.socket)
    t.equal(environ.COURIER_TEST_MARK, 'from-courier-env', "the state's courier.env")
    t.same(
      { ...environ, SOCKET_PATH: 'any' },
      { ...siblingEnviron, SOCKET_PATH: 'any' },
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
      (await routing()).includes(`server ${upstream} max_fails=1 fail_timeout=2s;`),
    )
    t.pass("the readiness watcher, from the state, puts it back in nginx's routing")

    const stopped = await runDeploy(['--stop', '--state', state])
    t.equal(stopped.code, 0)
    t.match(stopped.lines.at(-1), { msg: 'stopped', instances: 2, notSignalled: 0 })
    t.notOk(await isSameProcess(restarted), '`--stop` stopped it: nothing left running')
  },
)
