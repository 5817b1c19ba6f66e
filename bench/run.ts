/**
 * `npm run bench`: Courier and its Next.js peer (bench/peers/next) side by side on the loopback interface, with a bare
 * Fastify floor. Installs and builds what is missing, checks that both servers serve the same site (page sizes, the
 * filtered paths, the markers of every target), then for each pass and each target starts a fresh server (timed from
 * spawn to its first 200 of `/`: the cold start), warms it up, loads it with autocannon and judges every response. Prints a table on stdout, writes
 * bench/results/latest.json and the results block of docs/benchmarks.md; progress goes to stderr. Every process it starts is
 * stopped when it ends, fails or is interrupted. BENCH_DURATION=<seconds> and BENCH_PASSES=<n> shorten the run;
 * BENCH_KINDS=<kind,...> loads only those kinds of target; BENCH_BASELINE_NODE=<node binary> also runs Courier's same
 * build on that Node (an older line), target by target beside the pinned one. `--ab <checkout or git ref>` runs the
 * A/B mode instead (bench/ab.ts): this checkout against another, pass by pass.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { readDeploymentId, serverEntryFile } from './build-output.ts'
import { readStartCommand } from '../src/build/start-command.ts'
import { loadSite } from '../src/pages/site.ts'
import { host, load, projectRoot, benchmarksDoc, resultsFile } from './config.ts'
import { runAb } from './ab.ts'
import { AbArgumentError, parseAbArguments } from './ab-options.ts'
import { checkFloor } from './floor-check.ts'
import { kindOrder, selectedKinds } from './kinds.ts'
import { measureFirstLoadJs } from './first-load-js.ts'
import { measureFirstVisit } from './wire-bytes.ts'
import { imageTarget, measureColdTransform, prepareStaticImage, primeImage } from './images.ts'
import { runBench } from './lifecycle.ts'
import { runTarget } from './load.ts'
import {
  buildPeer,
  installPeer,
  measurePeerFirstLoadJs,
  peerBuildId,
  peerServerSpec,
  peerVersion,
  writePeerSite,
} from './peer-next.ts'
import { treePeakRssMiB } from './process-tree.ts'
import {
  ensureBuild,
  startServer,
  stopAll,
  timeStart,
  type ServerOutput,
  type ServerProcess,
  type ServerSpec,
} from './processes.ts'
import {
  describeMachine,
  formatReport,
  loadAverage,
  updateReadme,
  writeReport,
  type BenchReport,
  type PageSize,
  type TargetSummary,
} from './report.ts'
import { evaluateGoals, median, pairedRatio, ratio } from './stats.ts'
import {
  bareStatusTarget,
  baselineIdentity,
  codingAsked,
  compressedTwin,
  courierIdentity,
  firstGuidePath,
  judge,
  nextIdentity,
  pageTargets,
  type ServerName,
  type Target,
  type TargetKind,
} from './targets.ts'

const benchStart = performance.now()
const progress = (message: string) =>
  process.stderr.write(`bench [${Math.round((performance.now() - benchStart) / 1000)} s]: ${message}\n`)

/** The environment of every server: production, quiet logs, no dev server, no test routes. */
const serverEnv: NodeJS.ProcessEnv = {
  ...process.env,
  NODE_ENV: 'production',
  LOG_LEVEL: 'warn',
  COURIER_DEV: 'false',
  COURIER_TEST_ROUTES: 'false',
}

/** How each server says an optimized image came from its cache. */
const imageCacheHeader = { courier: 'x-image-cache', baseline: 'x-image-cache', next: 'x-nextjs-cache' } as const

const serverOrder: ServerName[] = ['courier', 'baseline', 'next', 'bare']

/** BENCH_BASELINE_NODE: a Node binary to run Courier's same build on beside the pinned Node, and its version. */
function baselineNode(): { execPath: string; version: string } | undefined {
  const execPath = process.env.BENCH_BASELINE_NODE?.trim()
  if (!execPath) return undefined
  const version = execFileSync(execPath, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim()
  return { execPath, version }
}

/** Paths whose filter decision both servers must share (config/request-filter.ts and the middleware's matcher). */
const parityPaths = [
  '/',
  '/status',
  '/guides/streaming-ssr',
  '/no-such-page',
  '/faq',
  '/faq-admin',
  '/api/health',
  '/apix',
  '/_next/static/none.js',
  '/images/dunes.jpg',
  '/images-private',
  '/photos/a.png',
  '/favicon.ico',
  '/robots.txt',
  '/sitemap.xml',
  '/sitemap-0.xml',
]

/** One request per target before any load, so a broken target is explained up front rather than only counted. */
async function preflight(target: Target, origin: string): Promise<void> {
  // fetch asks for gzip on its own: a target that asks for no coding asks for identity, as autocannon does.
  const headers = { 'accept-encoding': 'identity', ...target.headers }
  const response = await fetch(origin + target.path, { headers, signal: AbortSignal.timeout(10_000) })
  // fetch decompresses: the body is judged as a browser reads it, markers and all, whatever coding carried it.
  const body = await response.text()
  const { 'content-encoding': coding, ...rest } = Object.fromEntries(response.headers)
  const verdict =
    coding !== undefined && !codingAsked(target, coding) ? 'body-mismatch' : judge(target, response.status, body, rest)
  if (verdict !== 'ok') {
    progress(`warning: ${target.name} answers ${response.status} (${verdict}); every such response counts as an error`)
    progress(`  markers: ${JSON.stringify(target.markers)}; first bytes: ${JSON.stringify(body.slice(0, 300))}`)
  }
}

async function getText(url: string): Promise<string> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) })
  return response.text()
}

async function filtered(origin: string, pathname: string): Promise<boolean> {
  const response = await fetch(origin + pathname, { redirect: 'manual', signal: AbortSignal.timeout(10_000) })
  await response.arrayBuffer()
  return response.headers.has('content-security-policy')
}

/** HTML byte size of each page on both servers; a difference over 10 % of Courier's size is flagged. */
async function comparePageSizes(pages: string[], courierOrigin: string, nextOrigin: string): Promise<PageSize[]> {
  const sizes: PageSize[] = []
  for (const page of pages) {
    const courierBytes = Buffer.byteLength(await getText(courierOrigin + page))
    const nextBytes = Buffer.byteLength(await getText(nextOrigin + page))
    const differencePercent = Number(((Math.abs(courierBytes - nextBytes) / courierBytes) * 100).toFixed(1))
    sizes.push({ page, courierBytes, nextBytes, differencePercent, withinTenPercent: differencePercent <= 10 })
  }
  return sizes
}

/** Server output over the whole run, by server name (the first lines of each are kept, the rest counted). */
function collectOutput(into: Record<string, ServerOutput>, server: ServerProcess): void {
  const kept = (into[server.name] ??= { lines: [], total: 0 })
  kept.total += server.output.total
  for (const line of server.output.lines) if (kept.lines.length < 200) kept.lines.push(line)
}

async function main(): Promise<void> {
  const loadAtStart = loadAverage()
  const kinds = selectedKinds()
  const baseline = baselineNode()
  // The peer's install waits on the network, Courier's build on the CPU: both at once.
  const [courierBuild, peerInstall] = await Promise.all([ensureBuild(), installPeer()])
  const { pages } = await loadSite(false)
  const deploymentId = await readDeploymentId()
  await writePeerSite(pages, deploymentId)
  const peerBuild = await buildPeer()
  const buildId = await peerBuildId()
  const nextVersion = await peerVersion()

  const startCommand = await readStartCommand(projectRoot)
  const imageCacheDir = await mkdtemp(path.join(tmpdir(), 'courier-bench-cache-'))
  const specs: Record<'courier' | 'next', ServerSpec> = {
    courier: {
      name: 'courier',
      // As `npm start` runs it (Node's flags of package.json's start script): the compiled server, no loader.
      args: [...startCommand.nodeArgs, path.relative(projectRoot, serverEntryFile)],
      env: { ...serverEnv, IMAGE_CACHE_DIR: imageCacheDir },
      healthPath: '/api/health',
    },
    next: peerServerSpec(serverEnv, '/robots.txt'),
  }
  const baselineSpec: ServerSpec | undefined = baseline && {
    ...specs.courier,
    name: 'baseline',
    execPath: baseline.execPath,
    // The same chunks as dist/node/server.js loads, without its Node check and compile cache (the file says why).
    args: [...startCommand.nodeArgs, 'bench/older-node-entry.mjs'],
  }
  const logs: Record<string, ServerOutput> = {}

  progress('checking that both servers serve the same site')
  const courier = await startServer(specs.courier)
  const images = await prepareStaticImage(courier.origin)
  const bareSpec: ServerSpec = {
    name: 'bare',
    args: ['bench/bare-server.ts'],
    env: { ...serverEnv, BENCH_STATIC_DIR: images.dir },
    healthPath: '/api/health',
  }
  const [next, bare] = [await startServer(specs.next), await startServer(bareSpec)]
  const older = baselineSpec && (await startServer(baselineSpec))
  const nextImageBytes = (await primeImage(next.origin, imageCacheHeader.next)).length
  const targets: Target[] = []
  for (const [who, imageBytes] of [
    [courierIdentity(deploymentId), images.bytes],
    ...(baseline ? [[baselineIdentity(deploymentId, baseline.version), images.bytes] as const] : []),
    [nextIdentity(buildId), nextImageBytes],
  ] as const) {
    const plain = await pageTargets(pages, who)
    const compressed = plain.map(compressedTwin).filter((target): target is Target => target !== undefined)
    targets.push(...plain, ...compressed, imageTarget(who.server, who.label, imageBytes))
  }
  targets.push(await bareStatusTarget(pages, deploymentId), images.staticTarget)
  if (kinds) targets.splice(0, targets.length, ...targets.filter((target) => kinds.has(target.kind)))
  // Kind by kind, Courier then Next then the floor: the numbers a ratio divides are taken minutes apart at most.
  targets.sort(
    (a, b) =>
      kindOrder.indexOf(a.kind) - kindOrder.indexOf(b.kind) ||
      serverOrder.indexOf(a.server) - serverOrder.indexOf(b.server),
  )
  const origins: Record<ServerName, string> = {
    courier: courier.origin,
    next: next.origin,
    bare: bare.origin,
    baseline: older?.origin ?? '',
  }
  for (const target of targets) await preflight(target, origins[target.server])
  const floorCheck = await checkFloor(`${courier.origin}/status`, `${bare.origin}/status`)
  if (!floorCheck.sameDocument) progress(`warning: the floor differs from Courier: ${JSON.stringify(floorCheck)}`)
  const homePage = pages.find((page) => page.path === '/')!
  const firstLoadJs = {
    courier: await measureFirstLoadJs('/', await getText(`${courier.origin}/`), homePage.id),
    next: await measurePeerFirstLoadJs('/', await getText(`${next.origin}/`)),
  }
  progress('a first visit to / in Chromium, on each server')
  const firstVisit = { courier: await measureFirstVisit(courier.origin), next: await measureFirstVisit(next.origin) }
  const pageSizes = await comparePageSizes(
    ['/', (await firstGuidePath(pages)).path, '/status', '/faq', '/no-such-page'],
    courier.origin,
    next.origin,
  )
  for (const size of pageSizes.filter((entry) => !entry.withinTenPercent)) {
    progress(
      `warning: ${size.page} is ${size.courierBytes} B on Courier, ${size.nextBytes} B on Next (${size.differencePercent} %)`,
    )
  }
  const policyParity = []
  for (const pathname of parityPaths) {
    policyParity.push({
      path: pathname,
      courier: await filtered(courier.origin, pathname),
      next: await filtered(next.origin, pathname),
    })
  }
  for (const server of [courier, next, bare, ...(older ? [older] : [])]) collectOutput(logs, server)
  await stopAll()

  // Every Courier and Next server of the passes is started fresh and timed from spawn to its first 200 of `/`: those
  // starts are the cold starts (no separate round of them: the budget goes to the load).
  const coldMs: Record<'courier' | 'next' | 'baseline', number[]> = { courier: [], next: [], baseline: [] }
  const serverSpecs = { ...specs, ...(baselineSpec ? { baseline: baselineSpec } : {}) }
  const passes = new Map<Target, TargetSummary['passes']>(targets.map((target) => [target, []]))
  for (let pass = 1; pass <= load.passes; pass += 1) {
    for (const target of targets) {
      progress(
        `pass ${pass} of ${load.passes}, ${target.name}: fresh server, ${load.warmUpS} s warm-up, ${load.durationS} s × ${load.connections} connections`,
      )
      let server: ServerProcess
      if (target.server === 'bare') server = await startServer(bareSpec)
      else {
        const started = await timeStart({
          ...serverSpecs[target.server]!,
          healthPath: '/',
          probeIntervalMs: load.coldProbeIntervalMs,
        })
        coldMs[target.server].push(started.ms)
        server = started.server
      }
      try {
        if (target.kind === 'image-hit' && target.server !== 'bare')
          await primeImage(server.origin, imageCacheHeader[target.server])
        const result = await runTarget(target, server.origin, [process.pid, server.pid])
        passes.get(target)!.push({ ...result, peakRssMiB: treePeakRssMiB(server.pid) })
      } finally {
        collectOutput(logs, server)
        await server.stop()
      }
    }
  }
  await images.cleanUp()
  await rm(imageCacheDir, { recursive: true, force: true })
  progress('cold image transform: 1600 px JPEG to 640 px WebP, in this process')
  const coldTransform = await measureColdTransform()

  const summaries: TargetSummary[] = targets.map((target) => {
    const results = passes.get(target)!
    return {
      name: target.name,
      server: target.server,
      kind: target.kind,
      path: target.path,
      passes: results,
      median: {
        requestsPerSecond: median(results.map((result) => result.requestsPerSecond)),
        p50Ms: median(results.map((result) => result.latencyMs.p50)),
        p99Ms: median(results.map((result) => result.latencyMs.p99)),
        ttfbP50Ms: median(results.map((result) => result.ttfbMs.p50)),
        peakRssMiB: median(results.flatMap((result) => (result.peakRssMiB === null ? [] : [result.peakRssMiB]))),
      },
      failed: results.reduce((sum, result) => sum + result.failed, 0),
    }
  })
  const summaryOf = (server: ServerName, kind: string) =>
    summaries.find((summary) => summary.server === server && summary.kind === kind)
  const rps = (server: ServerName, kind: string) => summaryOf(server, kind)?.median.requestsPerSecond ?? null
  const rss = (server: ServerName, kind: string) => summaryOf(server, kind)?.median.peakRssMiB ?? null
  // Pass by pass: the baseline runs right after Courier on the same target (serverOrder).
  const passRps = (server: ServerName, kind: string) =>
    summaryOf(server, kind)?.passes.map((pass) => pass.requestsPerSecond) ?? []
  const versusOlderNode = (kind: string) => pairedRatio(passRps('courier', kind), passRps('baseline', kind))
  const loadedKinds = [...new Set(targets.map((target) => target.kind))] as TargetKind[]
  const largestRss = (server: ServerName) => {
    const values = summaries
      .filter((summary) => summary.server === server)
      .flatMap((summary) => summary.median.peakRssMiB ?? [])
    return values.length ? Math.max(...values) : null
  }
  const peakRssMiB = { courier: largestRss('courier'), next: largestRss('next') }
  const coldStart = {
    courier: { ms: coldMs.courier, medianMs: median(coldMs.courier) },
    next: { ms: coldMs.next, medianMs: median(coldMs.next) },
    ratio: ratio(median(coldMs.courier), median(coldMs.next)),
  }
  const report: BenchReport = {
    date: new Date().toISOString(),
    machine: describeMachine(loadAtStart),
    node: process.version,
    next: { version: nextVersion, buildId },
    load: {
      connections: load.connections,
      durationS: load.durationS,
      warmUpS: load.warmUpS,
      passes: load.passes,
      host,
    },
    setup: { courierBuild, peerInstall, peerBuild },
    wallTimeS: 0,
    targets: summaries,
    comparisons: loadedKinds.map((kind) => ({
      kind,
      courierRps: rps('courier', kind),
      nextRps: rps('next', kind),
      ratio: ratio(rps('courier', kind), rps('next', kind)),
      rssRatio: ratio(rss('courier', kind), rss('next', kind)),
      ...(baseline ? { baselineRps: rps('baseline', kind), versusBaseline: versusOlderNode(kind) } : {}),
    })),
    coldStart,
    ...(baseline ? { baseline: { node: baseline.version, coldStartMs: median(coldMs.baseline) } } : {}),
    firstLoadJs,
    firstVisit,
    peakRssMiB: { ...peakRssMiB, ratio: ratio(peakRssMiB.courier, peakRssMiB.next) },
    pageSizes,
    policyParity,
    goals: evaluateGoals({
      rps,
      peakRss: rss,
      kinds: loadedKinds,
      coldStartMs: { courier: coldStart.courier.medianMs, next: coldStart.next.medianMs },
      firstLoadJsGzipBytes: firstLoadJs.courier.totalGzipBytes,
      firstLoadJsSentBytes: firstLoadJs.courier.totalSentBytes,
      firstVisitBytes: { courier: firstVisit.courier?.total ?? null, next: firstVisit.next?.total ?? null },
      peakRssMiB,
      ...(baseline ? { versusOlderNode } : {}),
      ttfb: (server, kind) => summaryOf(server, kind)?.median.ttfbP50Ms ?? null,
    }),
    floorCheck,
    images: { courierBytes: images.bytes, nextBytes: nextImageBytes, coldTransform },
    serverLogs: logs,
  }
  report.wallTimeS = Math.round((performance.now() - benchStart) / 1000)
  process.stdout.write(formatReport(report))
  // A run of some kinds only is printed, never recorded over the last whole run.
  if (kinds) return
  await writeReport(resultsFile, report)
  await updateReadme(benchmarksDoc, report)
  progress(`wrote ${path.relative(process.cwd(), resultsFile)} and the results block of docs/benchmarks.md`)
}

let abMode: { other: string } | undefined
try {
  abMode = parseAbArguments(process.argv.slice(2))
  if (abMode && process.env.BENCH_BASELINE_NODE?.trim()) {
    throw new AbArgumentError('BENCH_BASELINE_NODE and --ab are two different runs: run one at a time')
  }
} catch (error) {
  if (!(error instanceof AbArgumentError)) throw error
  // A wrong command line is told in one line, before anything starts (exit 64, EX_USAGE).
  process.stderr.write(`bench: ${error.message}\n`)
  process.exit(64)
}
const other = abMode?.other
await runBench(other === undefined ? main : () => runAb(other, progress), progress)
