/**
 * `npm run bench:build`: the compiled server (`npm start`: dist/node/server.js, plain JavaScript) against the same
 * server run from its TypeScript sources through Node's type stripping (as `npm run dev` runs it, production settings), on every Courier
 * page target, identity and `Accept-Encoding: br, gzip`. Each pass starts a fresh server per target and variant, in
 * alternating order (compiled first on odd passes), so a slow minute of the machine falls on both; each start is timed
 * (spawn to the first 200 of `/`) and each run's peak RSS read. The server runs on one CPU and the load on another
 * (bench/cpu-pinning.ts), so both builds meet the same scheduling. The medians go to bench/results/build-compare.json
 * and the `bench:build` block of docs/benchmarks.md. The load is the bench's (bench/config.ts): BENCH_DURATION and BENCH_PASSES set it.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { readDeploymentId, serverEntryFile } from './build-output.ts'
import { load, projectRoot, benchmarksDoc } from './config.ts'
import { cpuPinning, pinThisProcess } from './cpu-pinning.ts'
import { runBench } from './lifecycle.ts'
import { runTarget } from './load.ts'
import { treePeakRssMiB } from './process-tree.ts'
import { ensureBuild, timeStart, type ServerSpec } from './processes.ts'
import { buildBlockMarkers, rewriteBlock } from './readme-block.ts'
import { median, ratio } from './stats.ts'
import { compressedTwin, courierIdentity, pageTargets, type Target } from './targets.ts'
import { readStartCommand } from '../src/build/start-command.ts'
import { loadSite } from '../src/pages/site.ts'

const resultsFile = path.join(projectRoot, 'bench', 'results', 'build-compare.json')
/** The goal of a compiled build: no target slower than this share of the sources' req/s in the same run. */
const goalRatio = 0.95

type Variant = 'compiled' | 'source'

const progress = (message: string) => process.stderr.write(`bench:build: ${message}\n`)

interface Sample {
  rps: number
  peakRssMiB: number | null
  coldMs: number
  failed: number
}

async function main(): Promise<void> {
  await ensureBuild()
  const { passes } = load
  const { pages } = await loadSite(false)
  const deploymentId = await readDeploymentId()
  const plain = await pageTargets(pages, courierIdentity(deploymentId))
  const targets: Target[] = plain.flatMap((target) =>
    [target, compressedTwin(target)].filter((t): t is Target => t !== undefined),
  )
  const start = await readStartCommand(projectRoot)
  const pinning = cpuPinning()
  if (pinning) pinThisProcess(pinning.load)
  else progress('one CPU or no taskset: the servers and the load share the CPUs as the scheduler places them')
  const cpus = pinning?.server
  const imageCacheDir = await mkdtemp(path.join(tmpdir(), 'courier-bench-build-'))
  const env = {
    ...process.env,
    ...start.env,
    LOG_LEVEL: 'warn',
    COURIER_DEV: 'false',
    COURIER_TEST_ROUTES: 'false',
    IMAGE_CACHE_DIR: imageCacheDir,
  }
  const specs: Record<Variant, ServerSpec> = {
    compiled: {
      name: 'compiled',
      args: [...start.nodeArgs, path.relative(projectRoot, serverEntryFile)],
      env,
      healthPath: '/',
      cpus,
    },
    // The sources as `npm run dev` loads them, with the production settings and Node flags of `npm start`.
    source: { name: 'source', args: [...start.nodeArgs, 'src/server.ts'], env, healthPath: '/', cpus },
  }
  const samples = new Map<string, Sample[]>()
  for (let pass = 1; pass <= passes; pass += 1) {
    const order: Variant[] = pass % 2 === 1 ? ['compiled', 'source'] : ['source', 'compiled']
    for (const target of targets) {
      for (const variant of order) {
        progress(`pass ${pass} of ${passes}, ${target.name}, ${variant}`)
        const { server, ms } = await timeStart({ ...specs[variant], probeIntervalMs: load.coldProbeIntervalMs })
        try {
          const result = await runTarget(target, server.origin, [process.pid, server.pid])
          const key = `${target.name}\t${variant}`
          const sample = {
            rps: result.requestsPerSecond,
            peakRssMiB: treePeakRssMiB(server.pid),
            coldMs: ms,
            failed: result.failed,
          }
          samples.set(key, [...(samples.get(key) ?? []), sample])
        } finally {
          await server.stop()
        }
      }
    }
  }
  await rm(imageCacheDir, { recursive: true, force: true })

  const of = (target: Target, variant: Variant) => samples.get(`${target.name}\t${variant}`) ?? []
  const rows = targets.map((target) => {
    const [compiled, source] = [of(target, 'compiled'), of(target, 'source')]
    const compiledRps = median(compiled.map((sample) => sample.rps))
    const sourceRps = median(source.map((sample) => sample.rps))
    return {
      target: target.name,
      compiledRps,
      sourceRps,
      ratio: ratio(compiledRps, sourceRps),
      compiledPeakRssMiB: median(compiled.flatMap((sample) => sample.peakRssMiB ?? [])),
      sourcePeakRssMiB: median(source.flatMap((sample) => sample.peakRssMiB ?? [])),
      failed: [...compiled, ...source].reduce((sum, sample) => sum + sample.failed, 0),
    }
  })
  const cold = (variant: Variant) =>
    median(targets.flatMap((target) => of(target, variant).map((sample) => sample.coldMs)))
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    passes,
    durationS: load.durationS,
    pinning: pinning ?? null,
    coldStartMs: { compiled: cold('compiled'), source: cold('source') },
    rows,
    lowestRatio: Math.min(...rows.map((row) => row.ratio ?? 0)),
  }
  await writeFile(resultsFile, `${JSON.stringify(report, null, 2)}\n`)
  const fmt = (value: number | null, digits = 0) =>
    value === null ? '–' : value.toLocaleString('en-US', { maximumFractionDigits: digits })
  const table = [
    `Measured ${report.date.slice(0, 10)}, Node ${report.node}, ${passes} passes of ${report.durationS} s per target and variant (median pass), autocannon -c 50.`,
    pinning
      ? `Every thread of the server on CPU ${pinning.server}, the load (autocannon, in the bench's process) on CPU ${pinning.load}.`
      : 'Servers and load unpinned (one CPU, or no taskset).',
    `Cold start (spawn to first 200 of \`/\`, median of every start): compiled ${fmt(report.coldStartMs.compiled)} ms, sources (type stripping) ${fmt(report.coldStartMs.source)} ms.`,
    `Lowest compiled ÷ sources: **${report.lowestRatio.toFixed(2)}** (goal ≥ ${goalRatio}).`,
    '',
    '| target | compiled req/s | sources (type stripping) req/s | compiled ÷ sources | peak RSS compiled / sources (MiB) | failed |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${row.target} | ${fmt(row.compiledRps)} | ${fmt(row.sourceRps)} | ${fmt(row.ratio, 2)} | ${fmt(row.compiledPeakRssMiB, 1)} / ${fmt(row.sourcePeakRssMiB, 1)} | ${row.failed} |`,
    ),
  ].join('\n')
  await writeFile(benchmarksDoc, rewriteBlock(await readFile(benchmarksDoc, 'utf8'), table, buildBlockMarkers))
  process.stdout.write(`${table}\n`)
}

await runBench(main, progress)
