/**
 * The readiness watcher (deploy/readiness-watcher.ts) and `--stop`'s identity checks, with three instances of the
 * test build behind nginx, deployed by the script, under load:
 * - an instance frozen with SIGSTOP (it still accepts connections, nginx cannot tell) is taken out of the routing
 *   after two failed `/api/ready`, and put back once it answers again (SIGCONT);
 * - an instance that exits is taken out too;
 * - the load meets no wrong answer and loses no request throughout: the requests the frozen instance held finish
 *   when it resumes, new ones go to the others;
 * - `--stop` signals nothing whose identity differs from what state.json recorded (a pid now held by another
 *   process), and stops the watcher, nginx and the instances that are the state's.
 * How long each took is printed, never asserted (timings go to docs/running-at-scale.md).
 */
import { spawn } from 'node:child_process'
import { readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import t from 'tap'
import { defaultDistDir } from '../../config/env.ts'
import { upstreamOf } from '../../deploy/instance-socket.ts'
import { startTimeOf } from '../../deploy/process-identity.ts'
import type { Target } from '../reliability/targets.ts'
import { projectRoot } from '../reliability/server-process.ts'
import { runMixedLoad } from './load.ts'
import { firstDeploy, readDeployState, runDeploy, stateFolder } from './deploy-run.ts'
import { waitFor } from './processes.ts'

const distDir = path.join(projectRoot, defaultDistDir(true))
const state = await stateFolder(t, { COURIER_TEST_ROUTES: 'true', LOG_LEVEL: 'warn' })
const { ports, run: deployed } = await firstDeploy(1, ([port]) => [
  '--state',
  state,
  '--dist',
  distDir,
  '--listen',
  `127.0.0.1:${port}`,
  '--instances',
  '3',
])
if (deployed.code !== 0) throw new Error(`the deploy failed:\n${deployed.output}`)
const origin = `http://127.0.0.1:${ports[0]}`
const instances = (await readDeployState(state)).deployments[0]!.instances

async function watcherLines(): Promise<Array<{ msg: string; server?: string; time: string }>> {
  const text = await readFile(path.join(state, 'watcher.log'), 'utf8')
  return text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
}

t.test('a frozen and an exited instance go out of rotation under load; no wrong answer, no lost request', async (t) => {
  const targets: Target[] = [
    {
      name: 'a document',
      path: '/',
      status: 200,
      check: (body) => body.includes('data-dpl-id="') && body.trimEnd().endsWith('</html>'),
    },
    {
      name: 'a streamed document',
      path: '/__test/slow?delay=20',
      status: 200,
      check: (body) => body.trimEnd().endsWith('</html>'),
    },
    { name: 'health', path: '/api/health', status: 200, check: (body) => body.includes('"ok"') },
  ]
  const load = runMixedLoad(origin, targets, { seconds: 24, clients: 4 })
  await new Promise((resolve) => setTimeout(resolve, 2_000))

  const observe = async (message: string, server: string) => {
    const since = Date.now()
    await waitFor(`the watcher to say "${message}" for ${server}`, () => observed.has(`${message}|${server}`), 30_000)
    return Date.now() - since
  }
  const observed = new Set<string>()
  let polling = true
  const poll = (async () => {
    while (polling) {
      for (const line of await watcherLines().catch(() => [])) observed.add(`${line.msg}|${line.server}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })()

  const [frozen, exited] = [instances[0]!, instances[1]!]
  const frozenServer = upstreamOf(frozen)
  const exitedServer = upstreamOf(exited)
  const took = { out: 0, back: 0, exitedOut: 0 }
  try {
    process.kill(frozen.pid, 'SIGSTOP')
    took.out = await observe('instance not ready: out of rotation', frozenServer)
    t.pass(`the frozen instance is out of rotation (${took.out} ms after SIGSTOP)`)
    t.match(
      await readFile(path.join(state, 'nginx', 'deployments.conf'), 'utf8'),
      `server ${frozenServer} max_fails=1 fail_timeout=2s down;`,
    )
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    process.kill(frozen.pid, 'SIGCONT')
    took.back = await observe('instance answers again: back in rotation', frozenServer)
    t.pass(`back in rotation ${took.back} ms after SIGCONT`)

    process.kill(exited.pid, 'SIGKILL')
    took.exitedOut = await observe('instance exited: out of rotation', exitedServer)
    t.pass(`the exited instance is out of rotation (${took.exitedOut} ms after SIGKILL)`)
    // The line comes first, the routing a moment after it.
    let routing = ''
    for (let attempt = 0; attempt < 100; attempt += 1) {
      routing = await readFile(path.join(state, 'nginx', 'deployments.conf'), 'utf8')
      if (!routing.includes(exitedServer)) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    t.notMatch(routing, exitedServer, 'no longer in the routing')
  } finally {
    process.kill(frozen.pid, 'SIGCONT')
    polling = false
    await poll
  }
  const report = await load
  t.same(report.wrong, {}, 'no wrong answer')
  t.equal(report.lost, 0, 'no lost request')
  t.comment(
    `load: ${report.sent} requests, ${JSON.stringify(report.statusCodes)}; frozen out after ${took.out} ms, back after ${took.back} ms; exited out after ${took.exitedOut} ms`,
  )
})

t.test('--stop signals only the processes state.json recorded, by pid, start time and socket', async (t) => {
  // A process that is not Courier, given the pid of an instance in the state file (as after a reboot reused it): once
  // with another start time, once with its own start time but a socket it does not listen on (one no instance record
  // names: an instance's record, deploy/instance-record.ts, would say which process serves it).
  const stranger = spawn('sleep', ['120'], { stdio: 'ignore' })
  t.teardown(() => stranger.kill('SIGKILL'))
  const recorded = await readDeployState(state)
  const [first, second] = recorded.deployments[0]!.instances.filter((one) => one.socket !== instances[1]!.socket)
  const strangerStart = await startTimeOf(stranger.pid!)
  const forged = structuredClone(recorded)
  forged.deployments[0]!.instances.push({
    pid: stranger.pid!,
    startTime: String(Number(strangerStart) + 1),
    socket: path.join(state, 'sockets', 'forged1.sock'),
    log: '',
  })
  const forgedSocket = path.join(state, 'sockets', 'forged2.sock')
  forged.deployments[0]!.instances.push({
    pid: stranger.pid!,
    startTime: strangerStart!,
    socket: forgedSocket,
    log: '',
  })
  await writeFile(path.join(state, 'state.json'), JSON.stringify(forged))
  const stopped = await runDeploy(['--stop', '--state', state])
  t.equal(stopped.code, 0, stopped.output)
  t.ok(await startTimeOf(stranger.pid!), 'the unrelated process still runs')
  t.equal(await startTimeOf(first!.pid), undefined, 'the instances stopped')
  t.equal(await startTimeOf(second!.pid), undefined)
  const line = stopped.lines.find((one) => one.msg === 'stopped') as { notSignalled?: number } | undefined
  t.equal(line?.notSignalled, 1, 'one recorded process not signalled: its socket is not what was recorded')
  const watcher = JSON.parse(
    await readFile(path.join(state, 'watcher.log'), 'utf8').then((text) => text.trim().split('\n').at(-1)!),
  ) as { msg: string }
  t.equal(watcher.msg, 'readiness watcher stopped')
})
