/**
 * `npm run bench -- --ab <other>`: this checkout (after) against another (before) on the same host, target by
 * target: Courier's targets only (no Next, no floor), each pass a fresh server of each side back to back, the side
 * that goes first alternating pass by pass (bench/ab-options.ts); medians of the passes (3, BENCH_PASSES) per target;
 * a target under 0.95x after ÷ before is run again once, and the re-run decides. `<other>` is a folder holding a
 * checkout, or a git ref of this repository, exported into a temporary folder (`git archive`) and removed at the end.
 * The other checkout gets `npm ci` when it has no node_modules and `npm run build` when it holds no build of its
 * sources. Both serve the same content (this checkout's CONTENT_DIR), each on its own pinned Node, as `npm start`
 * runs it. Prints the table on stdout and writes bench/results/ab.json. BENCH_KINDS and BENCH_DURATION apply.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { buildState } from '../src/build/ensure-build.mjs'
import { readStartCommand } from '../src/build/start-command.ts'
import { loadSite } from '../src/pages/site.ts'
import {
  abFloor,
  compareRuns,
  formatAbTable,
  needsRerun,
  sidesInPass,
  type AbResult,
  type AbRuns,
  type AbSide,
} from './ab-options.ts'
import { readDeploymentId } from './build-output.ts'
import { cpuPinning, pinThisProcess } from './cpu-pinning.ts'
import { load, processLimits, projectRoot } from './config.ts'
import { imageTarget, primeImage } from './images.ts'
import { selectedKinds } from './kinds.ts'
import { runTarget } from './load.ts'
import { ensureBuild, runToEnd, startServer, timeStart, type ServerSpec } from './processes.ts'
import { median } from './stats.ts'
import { benchContent, compressedTwin, courierIdentity, pageTargets, type Target } from './targets.ts'

/** `npm ci` of the other checkout: about 4 minutes on the shared machine, far less with a warm npm cache. */
const installMs = 900_000
const abResultsFile = path.join(projectRoot, 'bench', 'results', 'ab.json')

interface Checkout {
  dir: string
  /** As given on the command line, and the commit when it was a ref. */
  name: string
  cleanUp(): Promise<void>
}

/** The other checkout: the folder given, or the git ref exported into a temporary folder. */
async function checkoutOf(other: string): Promise<Checkout> {
  if (existsSync(other) && statSync(other).isDirectory()) {
    return { dir: path.resolve(other), name: other, cleanUp: async () => {} }
  }
  let commit: string
  try {
    const args = ['rev-parse', '--verify', '--quiet', `${other}^{commit}`]
    commit = execFileSync('git', args, { cwd: projectRoot, encoding: 'utf8' }).trim()
  } catch {
    throw new Error(`--ab ${other}: neither a folder nor a git ref of ${projectRoot}`)
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'courier-ab-'))
  execFileSync('sh', ['-c', 'git archive "$1" | tar -x -C "$2"', 'sh', commit, dir], { cwd: projectRoot })
  return { dir, name: `${other} (${commit.slice(0, 12)})`, cleanUp: () => rm(dir, { recursive: true, force: true }) }
}

/** Installs and builds the other checkout where it lacks either. */
async function readyCheckout(checkout: Checkout, progress: (message: string) => void): Promise<void> {
  if (!existsSync(path.join(checkout.dir, 'node_modules'))) {
    progress(`npm ci in ${checkout.dir}`)
    const args = ['ci', '--no-audit', '--no-fund', '--prefer-offline']
    await runToEnd('npm', args, { cwd: checkout.dir, timeoutMs: installMs, quiet: true })
  }
  if (buildState(checkout.dir, path.join(checkout.dir, 'dist')).state !== 'fresh') {
    progress(`npm run build in ${checkout.dir}`)
    await runToEnd('npm', ['run', 'build'], { cwd: checkout.dir, timeoutMs: processLimits.buildMs, quiet: true })
  }
}

/** A checkout's server as `npm start` runs it, on the Node that checkout pins (its node_modules/.bin/node). */
async function serverSpec(
  side: AbSide,
  dir: string,
  env: NodeJS.ProcessEnv,
  cpus: string | undefined,
): Promise<ServerSpec> {
  const start = await readStartCommand(dir)
  const pinnedNode = path.join(dir, 'node_modules', '.bin', 'node')
  return {
    name: side,
    cwd: dir,
    execPath: existsSync(pinnedNode) ? pinnedNode : process.execPath,
    args: [...start.nodeArgs, path.relative(dir, start.entry)],
    env: { ...env, ...start.env },
    healthPath: '/',
    probeIntervalMs: load.coldProbeIntervalMs,
    cpus,
  }
}

/** Courier's targets of one side, with its deployment id in the markers and its image's exact size. */
async function targetsOf(side: AbSide, spec: ServerSpec, dist: string): Promise<Target[]> {
  const deploymentId = await readDeploymentId(dist)
  const started = await startServer(spec)
  let imageBytes: number
  try {
    imageBytes = (await primeImage(started.origin, 'x-image-cache')).length
  } finally {
    await started.stop()
  }
  // The bench's names for the two servers of one build: after is Courier's own, before takes the baseline's slot.
  const server = side === 'after' ? ('courier' as const) : ('baseline' as const)
  const who = { ...courierIdentity(deploymentId), server }
  const plain = await pageTargets((await loadSite(false)).pages, who)
  const compressed = plain.map(compressedTwin).filter((target): target is Target => target !== undefined)
  return [...plain, ...compressed, imageTarget(who.server, who.label, imageBytes)]
}

interface Pair {
  before: Target
  after: Target
}

/** Passes over the pairs, each target on a fresh server, the two sides back to back in the pass's order. */
async function measure(
  pairs: readonly Pair[],
  specs: Record<AbSide, ServerSpec>,
  passes: number,
  cold: Record<AbSide, number[]>,
  progress: (message: string) => void,
) {
  const fresh = (pair: Pair) => ({ target: pair.after.name, before: [], after: [], failed: 0 })
  const runs = new Map<Pair, AbRuns & { failed: number }>(pairs.map((pair) => [pair, fresh(pair)]))
  for (let pass = 1; pass <= passes; pass += 1) {
    for (const pair of pairs) {
      for (const side of sidesInPass(pass)) {
        progress(`pass ${pass} of ${passes}, ${pair[side].name}, ${side}`)
        const { server, ms } = await timeStart(specs[side])
        cold[side].push(ms)
        try {
          if (pair[side].kind === 'image-hit') await primeImage(server.origin, 'x-image-cache')
          const result = await runTarget(pair[side], server.origin, [process.pid, server.pid])
          const kept = runs.get(pair)!
          kept[side].push(result.requestsPerSecond)
          kept.failed += result.failed
        } finally {
          await server.stop()
        }
      }
    }
  }
  return runs
}

export async function runAb(other: string, progress: (message: string) => void): Promise<void> {
  const kinds = selectedKinds()
  const checkout = await checkoutOf(other)
  try {
    await Promise.all([ensureBuild(), readyCheckout(checkout, progress)])
    // Each side's server on one CPU, the load on the other, as bench:build does: left to the scheduler, the same build
    // served 20,900 to 33,000 req/s from one pass to the next here, more than the difference under test.
    const pinning = cpuPinning()
    if (pinning) pinThisProcess(pinning.load)
    else progress('one CPU or no taskset: the servers and the load share the CPUs as the scheduler places them')
    // Both sides serve this checkout's content, so every marker is the same page's.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      LOG_LEVEL: 'warn',
      COURIER_DEV: 'false',
      COURIER_TEST_ROUTES: 'false',
      CONTENT_DIR: benchContent.dir,
    }
    const cacheDir = () => mkdtemp(path.join(tmpdir(), 'courier-ab-cache-'))
    const cacheDirs = { before: await cacheDir(), after: await cacheDir() }
    const specs: Record<AbSide, ServerSpec> = {
      before: await serverSpec('before', checkout.dir, { ...env, IMAGE_CACHE_DIR: cacheDirs.before }, pinning?.server),
      after: await serverSpec('after', projectRoot, { ...env, IMAGE_CACHE_DIR: cacheDirs.after }, pinning?.server),
    }
    const before = await targetsOf('before', specs.before, path.join(checkout.dir, 'dist'))
    const after = await targetsOf('after', specs.after, path.join(projectRoot, 'dist'))
    const pairs = after
      .filter((target) => !kinds || kinds.has(target.kind))
      .flatMap((target) => {
        const twin = before.find((candidate) => candidate.name === target.name)
        return twin ? [{ before: twin, after: target }] : []
      })
    const cold: Record<AbSide, number[]> = { before: [], after: [] }
    const first = await measure(pairs, specs, load.passes, cold, progress)
    const results: AbResult[] = pairs.map((pair) => ({ first: compareRuns(first.get(pair)!) }))
    const again = pairs.filter((_, index) => needsRerun(results[index]!.first))
    if (again.length) {
      progress(`under ${abFloor}x: ${again.map((pair) => pair.after.name).join(', ')}; running them again once`)
      const rerun = await measure(again, specs, load.passes, cold, progress)
      for (const pair of again) results[pairs.indexOf(pair)]!.rerun = compareRuns(rerun.get(pair)!)
    }
    const failed = pairs.reduce((sum, pair) => sum + first.get(pair)!.failed, 0)
    const coldStartMs = { before: median(cold.before), after: median(cold.after) }
    const runText = `${load.durationS} s per target, ${load.passes} passes`
    process.stdout.write(`A/B: after = ${projectRoot}, before = ${checkout.name}; ${runText}\n\n`)
    process.stdout.write(formatAbTable(results))
    const { before: coldBefore, after: coldAfter } = coldStartMs
    const ms = (value: number | null) => (value === null ? 'none' : value.toFixed(1))
    process.stdout.write(
      `Cold start (median of every start): before ${ms(coldBefore)} ms, after ${ms(coldAfter)} ms.\n`,
    )
    if (failed) process.stdout.write(`Failed responses, first passes: ${failed} (per target: bench/results/ab.json).\n`)
    const failedByTarget = Object.fromEntries(pairs.map((pair) => [pair.after.name, first.get(pair)!.failed]))
    const date = new Date().toISOString()
    const report = { date, node: process.version, before: checkout.name, load, coldStartMs, results, failedByTarget }
    await writeFile(abResultsFile, `${JSON.stringify(report, null, 2)}\n`)
    await Promise.all(Object.values(cacheDirs).map((dir) => rm(dir, { recursive: true, force: true })))
  } finally {
    await checkout.cleanUp()
  }
}
