/**
 * `npm run bench`: Courier in production mode and a bare Fastify floor, side by side on the loopback interface,
 * each target warmed up then loaded with autocannon, every response checked. Prints a table on stdout and writes
 * bench/results/latest.json; progress goes to stderr. Every server it starts is stopped when it ends, fails or is
 * interrupted. BENCH_DURATION=<seconds> shortens the measured runs.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { constants, tmpdir } from 'node:os'
import path from 'node:path'
import { loadBuiltClient, readDeploymentId } from './build-output.ts'
import { host, load, projectRoot, resultsFile } from './config.ts'
import type { FilterCostSample } from './filter-cost.ts'
import { checkFloor } from './floor-check.ts'
import { measureFirstLoadJs } from './first-load-js.ts'
import { runTarget, stopLoad, type TargetResult } from './load.ts'
import { ensureBuild, killAllNow, startServer, stopAll, type ServerProcess } from './processes.ts'
import { describeMachine, formatReport, loadAverage, writeReport, type BenchReport } from './report.ts'
import { measureColdTransform, prepareImages, type PreparedImages } from './images.ts'
import { buildTargets, judge, type ServerName, type Target } from './targets.ts'

const progress = (message: string) => process.stderr.write(`bench: ${message}\n`)

/** The environment of both servers: the production build, quiet logs, no dev server, no test routes. */
const serverEnv: NodeJS.ProcessEnv = {
  ...process.env,
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  COURIER_DEV: 'false',
  COURIER_TEST_ROUTES: 'false',
}

/** One request per target before any load, so a broken target is explained up front rather than only counted. */
async function preflight(target: Target, origin: string): Promise<void> {
  const response = await fetch(origin + target.path, { headers: target.headers ?? {}, signal: AbortSignal.timeout(10_000) })
  const body = await response.text()
  const verdict = judge(target, response.status, body, Object.fromEntries(response.headers))
  if (verdict !== 'ok') {
    progress(`warning: ${target.name} answers ${response.status} (${verdict}); every such response counts as an error`)
    progress(`  first bytes: ${JSON.stringify(body.slice(0, 300))}`)
  }
}

function throughputOf(results: TargetResult[], targets: Target[], server: ServerName, targetPath: string): number {
  const index = targets.findIndex((target) => target.server === server && target.path === targetPath)
  return results[index]?.requestsPerSecond ?? 0
}

/**
 * The request filter's price under load: `/` on Courier and on its unfiltered twin in alternating rounds, so both see
 * the same machine (a single pair run minutes apart on this VM differed by up to 20 % either way; the first run of a
 * process is also slower while its JIT warms). Returns the req/s of each round.
 */
async function measureFilterRounds(
  targets: Target[],
  servers: Record<ServerName, ServerProcess>,
  ourPids: number[],
): Promise<Array<{ filteredRps: number; unfilteredRps: number }>> {
  const filtered = targets.find((target) => target.server === 'courier' && target.path === '/')
  const unfiltered = targets.find((target) => target.server === 'unfiltered' && target.path === '/')
  if (!filtered || !unfiltered) return []
  const rounds: Array<{ filteredRps: number; unfilteredRps: number }> = []
  for (let round = 1; round <= load.filterRounds; round++) {
    progress(`request filter, round ${round} of ${load.filterRounds}: / with and without the filter`)
    const withFilter = await runTarget(filtered, servers.courier.origin, ourPids)
    const withoutFilter = await runTarget(unfiltered, servers.unfiltered.origin, ourPids)
    rounds.push({ filteredRps: withFilter.requestsPerSecond, unfilteredRps: withoutFilter.requestsPerSecond })
  }
  return rounds
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0

/** The filter's cost on `/`: 1 − the median of the rounds' filtered ÷ unfiltered throughput (goal: under 5 %). */
function filterCostOfRounds(rounds: Array<{ filteredRps: number; unfilteredRps: number }>): BenchReport['filterCost'] {
  const ratios = rounds.filter((round) => round.filteredRps && round.unfilteredRps).map((round) => round.filteredRps / round.unfilteredRps)
  if (!ratios.length) return null
  const ratio = Number(median(ratios).toFixed(3))
  return {
    rounds: rounds.map((round) => ({ ...round, ratio: Number((round.filteredRps / round.unfilteredRps).toFixed(3)) })),
    ratio,
    costPercent: Number(((1 - ratio) * 100).toFixed(1)),
  }
}

/** bench/filter-cost.ts in its own production process, before any server starts (it loads the CPUs alone). */
function measureFilterInProcess(): Promise<FilterCostSample> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'bench/filter-cost.ts'],
      { cwd: projectRoot, env: serverEnv, timeout: 180_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`filter-cost failed: ${stderr || error.message}`))
        else resolve(JSON.parse(stdout) as FilterCostSample)
      },
    )
  })
}

async function main(): Promise<void> {
  const build = await ensureBuild()
  const client = await loadBuiltClient()
  const deploymentId = await readDeploymentId()
  const targets = await buildTargets(client, deploymentId)
  const homePage = client.pages.find((page) => page.path === '/')
  if (!homePage) throw new Error("the build's page table has no page at /")

  const loadAtStart = loadAverage()
  progress('measuring the request filter in process (same page, filter on and off, alternating rounds)')
  const filterInProcess = await measureFilterInProcess()
  progress('starting Courier (production), Courier without the request filter and the bare floor server')
  const imageCacheDir = await mkdtemp(path.join(tmpdir(), 'courier-bench-cache-'))
  const courier = await startServer({
    name: 'courier',
    args: ['src/server.ts'],
    env: { ...serverEnv, IMAGE_CACHE_DIR: imageCacheDir },
    healthPath: '/api/health',
  })
  // The bare server serves, with @fastify/static, the very bytes Courier's optimizer answers from its cache.
  const images: PreparedImages = await prepareImages(courier.origin)
  const servers: Record<ServerName, ServerProcess> = {
    courier,
    bare: await startServer({
      name: 'bare',
      args: ['bench/bare-server.ts'],
      env: { ...serverEnv, BENCH_STATIC_DIR: images.dir },
      healthPath: '/api/health',
    }),
    unfiltered: await startServer({
      name: 'unfiltered',
      args: ['bench/unfiltered-server.ts'],
      env: serverEnv,
      healthPath: '/api/health',
    }),
  }
  targets.push(...images.targets)

  const floorCheck = await checkFloor(`${servers.courier.origin}/status`, `${servers.bare.origin}/status`)
  if (!floorCheck.sameDocument) progress(`warning: the floor differs from Courier: ${JSON.stringify(floorCheck)}`)
  const homeHtml = await (await fetch(`${servers.courier.origin}/`, { signal: AbortSignal.timeout(10_000) })).text()
  const firstLoadJs = await measureFirstLoadJs('/', homeHtml, homePage.id)

  for (const target of targets) await preflight(target, servers[target.server].origin)
  const ourPids = [process.pid, servers.courier.pid, servers.bare.pid, servers.unfiltered.pid]
  const results: TargetResult[] = []
  for (const target of targets) {
    progress(`${target.name}: ${load.warmUpS} s warm-up, then ${load.durationS} s × ${load.connections} connections`)
    results.push(await runTarget(target, servers[target.server].origin, ourPids))
  }
  const filterRounds = await measureFilterRounds(targets, servers, ourPids)

  progress('stopping the servers')
  await stopAll()
  await images.cleanUp()
  await rm(imageCacheDir, { recursive: true, force: true })
  progress('cold image transform: 1600 px JPEG to 640 px WebP, in this process')
  const coldTransform = await measureColdTransform()
  const staticImage = throughputOf(results, targets, 'bare', images.targets[1]!.path)

  const bareStatus = throughputOf(results, targets, 'bare', '/status')
  const report: BenchReport = {
    date: new Date().toISOString(),
    machine: describeMachine(loadAtStart),
    node: process.version,
    load: { connections: load.connections, durationS: load.durationS, warmUpS: load.warmUpS, host },
    build,
    targets: results,
    courierOverBareStatus: bareStatus
      ? Number((throughputOf(results, targets, 'courier', '/status') / bareStatus).toFixed(3))
      : null,
    filterCost: filterCostOfRounds(filterRounds),
    filterInProcess,
    floorCheck,
    firstLoadJs,
    images: {
      bytes: images.bytes,
      courierHitOverStatic: staticImage
        ? Number((throughputOf(results, targets, 'courier', images.targets[0]!.path) / staticImage).toFixed(3))
        : null,
      coldTransform,
    },
    serverLogs: { courier: servers.courier.output, bare: servers.bare.output },
  }
  await writeReport(resultsFile, report)
  process.stdout.write(formatReport(report))
  progress(`wrote ${path.relative(process.cwd(), resultsFile)}`)
}

// However the bench ends, its servers end with it: signals stop them gracefully, the exit event kills stragglers.
process.once('exit', killAllNow)
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, function stopOnSignal() {
    progress(`${signal}: stopping`)
    stopLoad()
    stopAll().finally(() => process.exit(128 + constants.signals[signal]))
  })
}

try {
  await main()
} catch (error) {
  progress(`failed: ${(error as Error)?.stack ?? String(error)}`)
  stopLoad()
  await stopAll()
  process.exitCode = 1
}
