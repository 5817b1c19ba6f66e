/**
 * A deploy interrupted at each of its steps (docs/running-at-scale.md "Rolling deploy"): deployment A live
 * through nginx, then a deploy of B held before one step (COURIER_DEPLOY_HOLD_BEFORE) and sent SIGINT or SIGTERM
 * there. Before the drain step, everything B's deploy started is stopped and A is live as it was (the same
 * instances, the same routing, documents from A); at the prune step, B is live and A's instances are stopped; in
 * every case no process of the deploy is left over, and the same deploy run again succeeds. Also: an interrupt in the
 * middle of a `--source` build stops the build and leaves no build folder. And once B is live, a file name A and B both
 * have with other bytes (their stylesheet: the build stamps `?dpl=<id>` on what it names after it hashed the names) is
 * served from the shared folder as each deployment's own bytes, in each coding.
 */
import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import http from 'node:http'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { deploySteps } from '../../deploy/deploy-steps.ts'
import { startTimeOf } from '../../deploy/process-identity.ts'
import { defaultDistDir } from '../../config/env.ts'
import { projectRoot } from '../reliability/server-process.ts'
import {
  firstDeploy,
  leadProcessesMentioning,
  readDeployState,
  runDeploy,
  startDeploy,
  stateFolder,
  type DeployRun,
} from './deploy-run.ts'
import { waitFor } from './processes.ts'

const distA = path.join(projectRoot, defaultDistDir(false))
const distB = path.join(projectRoot, defaultDistDir(true))
const state = await stateFolder(t, { LOG_LEVEL: 'warn' })
const commonOn = (port: number | undefined) => [
  '--state',
  state,
  '--listen',
  `127.0.0.1:${port}`,
  '--instances',
  '2',
  '--old-grace-seconds',
  '1',
]
const first = await firstDeploy(1, ([port]) => [...commonOn(port), '--dist', distA])
const origin = `http://127.0.0.1:${first.ports[0]}`
const common = commonOn(first.ports[0])

/** The deployment that answers documents through nginx (`<html data-dpl-id>`). */
async function servedDeployment(): Promise<string | undefined> {
  const body = await fetch(`${origin}/`).then((response) => response.text())
  return /data-dpl-id="([^"]+)"/.exec(body)?.[1]
}

async function deploymentIdOf(run: DeployRun): Promise<string> {
  const line = run.lines.find((one) => one.msg === 'deployed' || (one.msg === 'step' && one.step === 'publish'))
  return String(line?.deploymentId)
}

/** The pids of the instances a run started (its `instances started` line). */
function startedPids(lines: DeployRun['lines']): number[] {
  const line = lines.find((one) => one.msg === 'instances started') as
    { instances?: Array<{ pid: number }> } | undefined
  return line?.instances?.map((one) => one.pid) ?? []
}

/** An answer as it came (its coding not undone), by node:http. */
function getRaw(
  url: string,
  headers: Record<string, string>,
): Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (response) => {
        const parts: Buffer[] = []
        response.on('data', (part: Buffer) => parts.push(part))
        response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(parts) }))
        response.on('error', reject)
      })
      .on('error', reject)
  })
}

const alive = async (pids: number[]) =>
  (await Promise.all(pids.map(startTimeOf))).filter((time) => time !== undefined).length

const deployedA = first.run
if (deployedA.code !== 0) throw new Error(`A did not deploy:\n${deployedA.output}`)
const idA = await deploymentIdOf(deployedA)

// What is running for the state: nginx's master and the readiness watcher (their command lines name the state; nginx's
// children, which a reload replaces, are left out).
const stateProcesses = async () => (await leadProcessesMentioning(state)).sort((a, b) => a - b)
const before = { processes: await stateProcesses(), state: await readDeployState(state) }

let signalIndex = 0
for (const step of deploySteps.filter((one) => one !== 'prune')) {
  t.test(`interrupted before ${step}: A live as it was, nothing of B left, B deployable`, async (t) => {
    const signal = signalIndex++ % 2 === 0 ? 'SIGINT' : 'SIGTERM'
    const run = startDeploy([...common, '--dist', distB], { COURIER_DEPLOY_HOLD_BEFORE: step })
    await waitFor(`the deploy to hold before ${step}`, () => run.output().includes('"holding before step'), 120_000)
    const startedByB = startedPids(
      run
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line)),
    )
    run.child.kill(signal)
    const result = await run.done
    t.equal(result.code, 130, `${signal}: exit 130`)
    t.ok(
      result.lines.some((line) => line.msg === 'deploy interrupted: everything it started is stopped'),
      'says so',
    )
    t.equal(await alive(startedByB), 0, `B's instances (${startedByB.length}) are gone`)
    t.same(await readDeployState(state), before.state, 'state.json: A, its same instances')
    t.same(
      await stateProcesses(),
      before.processes,
      "the state's processes: A's nginx, watcher and instances, the same pids",
    )
    t.equal(await servedDeployment(), idA, 'documents from A')
    const manifests = await readdir(path.join(state, 'nginx', 'assets', 'deployments'))
    t.same(manifests, [`${idA}.json`], "B's assets unpublished")
  })
}

t.test('the same deploy of B then runs to its end', async (t) => {
  const run = await runDeploy([...common, '--dist', distB])
  t.equal(run.code, 0, run.code === 0 ? 'deployed' : run.output)
  const idB = await deploymentIdOf(run)
  t.not(idB, idA)
  t.equal(await servedDeployment(), idB, 'documents from B')
  t.equal(await alive(before.state.deployments[0]!.instances.map((one) => one.pid)), 0, "A's instances drained")
})

t.test(
  "a name both builds have with other bytes: after the deploy, each deployment's own file from the shared folder",
  async (t) => {
    // A is drained (its instances are gone) but its assets are kept: an old tab of A still loads A's files.
    const idB = (JSON.parse(await readFile(path.join(distB, 'deployment.json'), 'utf8')) as { deploymentId: string })
      .deploymentId
    const chunks = (dist: string) => path.join(dist, 'client', 'chunks')
    const differing: string[] = []
    for (const name of await readdir(chunks(distA))) {
      if (/\.(br|gz|zst|dcb|dcz)$/.test(name)) continue
      const inB = await readFile(path.join(chunks(distB), name)).catch(() => undefined)
      if (inB && !inB.equals(await readFile(path.join(chunks(distA), name)))) differing.push(name)
    }
    t.ok(differing.length > 0, `the two builds give other bytes to ${differing.join(', ')}`)
    for (const name of differing) {
      for (const [label, id, dist] of [
        ['A', idA, distA],
        ['B', idB, distB],
      ] as const) {
        for (const [coding, suffix] of [
          ['identity', ''],
          ['br', '.br'],
          ['gzip', '.gz'],
        ] as const) {
          const file = path.join(chunks(dist), `${name}${suffix}`)
          if (!existsSync(file)) continue
          const answer = await getRaw(`${origin}/_next/static/chunks/${name}?dpl=${id}`, { 'accept-encoding': coding })
          t.equal(
            answer.headers['x-courier-asset'],
            'shared-folder',
            `${name} of ${label} (${coding}): from the shared folder`,
          )
          t.ok(answer.body.equals(await readFile(file)), `${name} of ${label} (${coding}): ${label}'s bytes`)
        }
      }
    }
  },
)

t.test(
  'interrupted before prune: the switch is done, A (the new one) live, B stopped; run again: nothing to do',
  async (t) => {
    const previous = await readDeployState(state)
    const run = startDeploy([...common, '--dist', distA], { COURIER_DEPLOY_HOLD_BEFORE: 'prune' })
    await waitFor('the deploy to hold before prune', () => run.output().includes('"holding before step'), 120_000)
    run.child.kill('SIGINT')
    const result = await run.done
    t.equal(result.code, 130)
    t.equal(await servedDeployment(), idA, 'documents from A')
    t.equal(
      await alive(previous.deployments.flatMap((one) => one.instances.map((instance) => instance.pid))),
      0,
      "B's instances drained, none left over",
    )
    const again = await runDeploy([...common, '--dist', distA])
    t.equal(again.code, 0)
    t.ok(
      again.lines.some((line) => String(line.msg).startsWith('deployment is live already: nothing to do')),
      'the same deploy again: nothing to do',
    )
  },
)

t.test('interrupted in the middle of a --source build: the build stops, no build folder is left', async (t) => {
  const run = startDeploy([...common, '--source', projectRoot])
  await waitFor('the build to start', () => run.output().includes('"step":"build"'), 60_000)
  // Into the build (Vite runs for several seconds on this machine).
  await sleep(1_500)
  run.child.kill('SIGINT')
  const result = await run.done
  t.equal(result.code, 130, result.output.slice(-2000))
  const releases = await readdir(path.join(state, 'releases'))
  t.same(
    releases.filter((name) => name.startsWith('.staging-')),
    [],
    'no build folder',
  )
  const building = (await stateProcesses()).filter((pid) => !before.processes.includes(pid))
  const stillRunning = (await readDeployState(state)).deployments.flatMap((one) =>
    one.instances.map((instance) => instance.pid),
  )
  t.same(
    building.filter((pid) => !stillRunning.includes(pid)),
    [],
    'no build process left',
  )
  t.equal(await servedDeployment(), idA, 'documents from A')
})

t.test(
  'killed outright (SIGKILL) after starting instances: the next deploy stops what it left, then deploys',
  async (t) => {
    const run = startDeploy([...common, '--dist', distB], { COURIER_DEPLOY_HOLD_BEFORE: 'ready' })
    await waitFor('the deploy to hold before ready', () => run.output().includes('"holding before step'), 120_000)
    const left = startedPids(
      run
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line)),
    )
    run.child.kill('SIGKILL')
    await run.done
    t.equal(await alive(left), left.length, `a killed deploy undoes nothing: its ${left.length} instances run on`)
    const again = await runDeploy([...common, '--dist', distB])
    t.equal(
      again.code,
      0,
      again.code === 0 ? 'the next deploy runs (the lock of the killed one is taken over)' : again.output.slice(-3000),
    )
    t.ok(
      again.lines.some((line) => line.msg === 'stopping instances a killed deploy left'),
      'and says what it stops',
    )
    t.equal(await alive(left), 0, "the killed deploy's instances are gone")
  },
)
