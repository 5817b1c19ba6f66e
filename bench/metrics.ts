/**
 * `npm run bench:metrics`: what Prometheus metrics cost (docs/benchmarks.md "Metrics cost"). The compiled server as `npm start` runs it,
 * with METRICS_PORT unset (off) and set (on), loaded on the static page `/` and the dynamic `/status`, both asked with
 * `Accept-Encoding: br, gzip` as browsers ask. Interleaved A/B: each pass starts a fresh server per variant, the
 * order of the variants alternating from pass to pass, and the goal (req/s on ÷ off >= 0.95) is read from the median
 * of the per-pass ratios. autocannon with the bench's load shape (bench/config.ts; BENCH_DURATION and BENCH_PASSES
 * change it), every response judged, and the server's CPU time per request beside req/s (the load generator shares
 * the cores, so on a busy machine req/s swings more than the CPU a request costs); then the same target at a fixed
 * rate well below capacity, for the server's CPU per request alone. Then the series count of one scrape after 10,000 random requests (the fuzz
 * pass of test/metrics/fuzz.test.ts, fixed seed), and the CPU time one recording costs, in this process. Prints JSON
 * lines as it goes and a summary, writes bench/results/metrics.json.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { readStartCommand } from '../src/build/start-command.ts'
import { CourierMetrics } from '../src/metrics/courier-metrics.ts'
import { loadSite } from '../src/pages/site.ts'
import { parseExposition } from '../test/metrics/exposition.ts'
import { randomRequests, sendRandomRequests } from '../test/metrics/random-requests.ts'
import { readDeploymentId, serverEntryFile } from './build-output.ts'
import { benchRoot, load, projectRoot } from './config.ts'
import autocannon from 'autocannon'
import { sampleCpu } from './other-load.ts'
import { ensureBuild, findFreePort, killAllNow, startServer, stopAll, type ServerSpec } from './processes.ts'
import { median, ratio } from './stats.ts'
import { compressedTwin, courierIdentity, judge, pageTargets, type Target } from './targets.ts'

type Variant = 'off' | 'on'

/** The goal: req/s with metrics on ÷ off, on each target (docs/benchmarks.md "Metrics cost"). */
const goalRatio = 0.95
/**
 * A fixed load per target, far below what either variant serves even on a busy 2-core machine (`/` takes thousands a
 * second, `/status` hundreds): both variants get the same requests, so their server CPU per request compares without
 * the load generator's share of the cores in between. Ours.
 */
const fixedRate: Readonly<Record<string, number>> = { '/': 1000, '/status': 200 }
/** The fuzz pass: as many random requests as test/metrics/fuzz.test.ts sends, from one fixed seed. */
const fuzzRequests = 10_000
const fuzzSeed = 17
const resultsFile = path.join(benchRoot, 'results', 'metrics.json')

const progress = (message: string) => process.stderr.write(`bench:metrics: ${message}\n`)

/** Calls per measurement of the in-process recording cost: enough for V8's optimising tier and a stable mean. */
const recordingCalls = 1_000_000

/**
 * CPU time of one recording, in nanoseconds, in this process: what a response (its duration) and a streamed page
 * (its shell and all-ready times) add to the hot path, apart from the machine's other load. Median of three rounds.
 */
function recordingCostNs(): { response: number; streamedPage: number; keptDocument: number } {
  const metrics = new CourierMetrics({ deploymentId: 'bench', version: '0', nodeVersion: process.version })
  const request = { routeOptions: { url: '/status' }, method: 'GET' } as unknown as FastifyRequest
  const reply = { statusCode: 200, elapsedTime: 1.5 } as unknown as FastifyReply
  const cost = (record: () => void) => {
    const rounds = []
    for (let round = 0; round < 3; round++) {
      const before = process.cpuUsage()
      for (let call = 0; call < recordingCalls; call++) record()
      const used = process.cpuUsage(before)
      rounds.push(((used.user + used.system) * 1000) / recordingCalls)
    }
    return Math.round(median(rounds)!)
  }
  return {
    response: cost(() => metrics.responseFinished(request, reply)),
    streamedPage: cost(() => {
      metrics.renderShellReady(request, 'page', 0.002)
      metrics.renderAllReady(request, 'page', 0.003)
    }),
    keptDocument: cost(() => metrics.keptDocumentSent(request, 'page')),
  }
}

interface Measured {
  requestsPerSecond: number
  p99Ms: number
  requests: number
  /** Responses without the target's status and body, plus connection errors and time-outs. */
  failed: number
  /** CPU time of the server process per measured request, in microseconds: less sensitive to the machine's other
   * load than req/s (autocannon and the server share the cores). */
  serverCpuUsPerRequest: number | null
  /** The same at the target's fixed rate (fixedRate). */
  fixedRateCpuUsPerRequest: number | null
}

function cpuUsPerRequest(
  before: ReturnType<typeof sampleCpu>,
  after: ReturnType<typeof sampleCpu>,
  requests: number,
): number | null {
  if (!before || !after || requests === 0) return null
  return Number((((after.oursS - before.oursS) * 1e6) / requests).toFixed(1))
}

/** One target on one server: a warm-up, then the measured run with every response judged and the server's CPU read. */
async function measure(target: Target, origin: string, serverPid: number): Promise<Measured> {
  const common = {
    url: origin + target.path,
    connections: load.connections,
    timeout: load.timeoutS,
    headers: target.headers ?? {},
  }
  await autocannon({ ...common, duration: load.warmUpS })
  let failed = 0
  const lowerCase = (headers: Record<string, string>) =>
    Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]))
  const before = sampleCpu([serverPid])
  const result = await autocannon({
    ...common,
    duration: load.durationS,
    requests: [
      {
        method: 'GET',
        path: target.path,
        headers: target.headers ?? {},
        onResponse(status, body, _context, headers) {
          if (judge(target, status, body, lowerCase(headers)) !== 'ok') failed += 1
        },
      },
    ],
  })
  const after = sampleCpu([serverPid])
  const fixedBefore = sampleCpu([serverPid])
  const fixed = await autocannon({ ...common, duration: load.durationS, overallRate: fixedRate[target.path] ?? 100 })
  const fixedAfter = sampleCpu([serverPid])
  return {
    requestsPerSecond: Number(result.requests.average.toFixed(1)),
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    failed: failed + result.errors + result.timeouts + fixed.errors + fixed.timeouts,
    serverCpuUsPerRequest: cpuUsPerRequest(before, after, result.requests.total),
    fixedRateCpuUsPerRequest: cpuUsPerRequest(fixedBefore, fixedAfter, fixed.requests.total),
  }
}

async function main(): Promise<void> {
  await ensureBuild()
  const { pages } = await loadSite(false)
  const deploymentId = await readDeploymentId()
  const targets = (await pageTargets(pages, courierIdentity(deploymentId)))
    .filter((target) => target.kind === 'static-page' || target.kind === 'dynamic-page')
    .map(compressedTwin)
    .filter((target): target is Target => target !== undefined)

  const startCommand = await readStartCommand(projectRoot)
  const imageCacheDir = await mkdtemp(path.join(tmpdir(), 'courier-bench-metrics-images-'))
  async function spec(variant: Variant): Promise<ServerSpec & { metricsPort?: number }> {
    const metricsPort = variant === 'on' ? await findFreePort() : undefined
    return {
      name: `courier, metrics ${variant}`,
      args: [...startCommand.nodeArgs, path.relative(projectRoot, serverEntryFile)],
      env: {
        ...process.env,
        NODE_ENV: 'production',
        LOG_LEVEL: 'warn',
        COURIER_DEV: 'false',
        COURIER_TEST_ROUTES: 'false',
        IMAGE_CACHE_DIR: imageCacheDir,
        ...(metricsPort === undefined ? {} : { METRICS_PORT: String(metricsPort) }),
      },
      healthPath: '/api/health',
      ...(metricsPort === undefined ? {} : { metricsPort }),
    }
  }

  const runs: Array<{ pass: number; variant: Variant; target: string; result: Measured; counted?: number }> = []
  try {
    for (let pass = 1; pass <= load.passes; pass += 1) {
      const order: Variant[] = pass % 2 === 1 ? ['off', 'on'] : ['on', 'off']
      for (const variant of order) {
        const serverSpec = await spec(variant)
        const server = await startServer(serverSpec)
        try {
          for (const target of targets) {
            progress(`pass ${pass} of ${load.passes}, metrics ${variant}, ${target.name}`)
            const result = await measure(target, server.origin, server.pid)
            let counted: number | undefined
            if (serverSpec.metricsPort !== undefined) {
              // The metrics saw the load: the request count of the target's route, from the metrics port.
              const text = await (await fetch(`http://127.0.0.1:${serverSpec.metricsPort}/metrics`)).text()
              counted = parseExposition(text)
                .filter(
                  (sample) =>
                    sample.name === 'courier_http_request_duration_seconds_count' &&
                    sample.labels.route === target.path,
                )
                .reduce((sum, sample) => sum + sample.value, 0)
            }
            const run = { pass, variant, target: target.name, result, ...(counted === undefined ? {} : { counted }) }
            runs.push(run)
            process.stdout.write(`${JSON.stringify({ pass, variant, target: target.name, ...result, counted })}\n`)
          }
        } finally {
          await server.stop()
        }
      }
    }

    progress(`fuzz pass: ${fuzzRequests} random requests (seed ${fuzzSeed}), then one scrape`)
    const fuzzSpec = await spec('on')
    const fuzzServer = await startServer(fuzzSpec)
    let fuzz
    try {
      const before = parseExposition(
        await (await fetch(`http://127.0.0.1:${fuzzSpec.metricsPort}/metrics`)).text(),
      ).length
      const sent = await sendRandomRequests(fuzzServer.origin, randomRequests(fuzzSeed), fuzzRequests)
      const scrapeStarted = performance.now()
      const text = await (await fetch(`http://127.0.0.1:${fuzzSpec.metricsPort}/metrics`)).text()
      const scrapeMs = Number((performance.now() - scrapeStarted).toFixed(1))
      const samples = parseExposition(text)
      fuzz = {
        requests: fuzzRequests,
        seed: fuzzSeed,
        statuses: Object.fromEntries(sent.statuses),
        failed: sent.failed,
        seriesBefore: before,
        seriesAfter: samples.length,
        requestDurationSeries: samples.filter((sample) =>
          sample.name.startsWith('courier_http_request_duration_seconds'),
        ).length,
        scrapeBytes: Buffer.byteLength(text),
        scrapeMs,
      }
    } finally {
      await fuzzServer.stop()
    }

    progress(`recording cost in this process, ${recordingCalls} calls`)
    const recordingNs = recordingCostNs()

    const summary = targets.map((target) => {
      const of = (variant: Variant) => runs.filter((run) => run.target === target.name && run.variant === variant)
      const perPass = []
      for (let pass = 1; pass <= load.passes; pass += 1) {
        const on = of('on').find((run) => run.pass === pass)?.result.requestsPerSecond
        const off = of('off').find((run) => run.pass === pass)?.result.requestsPerSecond
        perPass.push(ratio(on, off))
      }
      const medianRatio = median(perPass.filter((value): value is number => value !== null))
      const cpu = (
        variant: Variant,
        field: 'serverCpuUsPerRequest' | 'fixedRateCpuUsPerRequest' = 'serverCpuUsPerRequest',
      ) =>
        median(
          of(variant)
            .map((run) => run.result[field])
            .filter((value): value is number => value !== null),
        )
      return {
        target: target.name,
        offRequestsPerSecond: median(of('off').map((run) => run.result.requestsPerSecond)),
        onRequestsPerSecond: median(of('on').map((run) => run.result.requestsPerSecond)),
        perPassRatios: perPass,
        medianRatio,
        offServerCpuUsPerRequest: cpu('off'),
        onServerCpuUsPerRequest: cpu('on'),
        /** CPU per request off ÷ on: the throughput the CPU cost alone allows, on ÷ off. */
        cpuRatio: ratio(cpu('off'), cpu('on')),
        fixedRate: fixedRate[target.path] ?? 100,
        offFixedRateCpuUsPerRequest: cpu('off', 'fixedRateCpuUsPerRequest'),
        onFixedRateCpuUsPerRequest: cpu('on', 'fixedRateCpuUsPerRequest'),
        fixedRateCpuRatio: ratio(cpu('off', 'fixedRateCpuUsPerRequest'), cpu('on', 'fixedRateCpuUsPerRequest')),
        goal: `>= ${goalRatio}`,
        met: medianRatio === null ? null : medianRatio >= goalRatio,
        failed: runs.filter((run) => run.target === target.name).reduce((sum, run) => sum + run.result.failed, 0),
      }
    })
    const report = {
      date: new Date().toISOString(),
      node: process.version,
      connections: load.connections,
      durationS: load.durationS,
      warmUpS: load.warmUpS,
      passes: load.passes,
      summary,
      fuzz,
      recordingNs,
      runs: runs.map(({ result, ...run }) => ({ ...run, ...result })),
    }
    await writeFile(resultsFile, `${JSON.stringify(report, null, 2)}\n`)
    process.stdout.write(`${JSON.stringify({ summary, fuzz, recordingNs }, null, 2)}\n`)
  } finally {
    await stopAll()
    await rm(imageCacheDir, { recursive: true, force: true })
  }
}

process.on('exit', killAllNow)
await main()
