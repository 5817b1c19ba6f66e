/**
 * Every constant of `npm run bench`, once, with its reason. The load shape is the one the brief fixes
 * (`autocannon -c 50 -d 10` after a warm-up); only the measured duration may be shortened, for quick runs.
 */
import path from 'node:path'

export const benchRoot = import.meta.dirname
export const projectRoot = path.resolve(benchRoot, '..')
/** Same default and same variable as the server (config/env.ts): both processes read the same build. */
export const distDir = path.resolve(projectRoot, process.env.DIST_DIR ?? 'dist')
export const resultsFile = path.join(benchRoot, 'results', 'latest.json')
/** The Next.js peer: its own package.json and lock, installed and built by the bench only. */
export const peerDir = path.join(benchRoot, 'peers', 'next')
/** The document whose marked blocks the benches rewrite from bench/results/ (bench, bench:build, lighthouse). */
export const benchmarksDoc = path.join(projectRoot, 'docs', 'benchmarks.md')

/** Load goes to the loopback interface only: a benchmark never leaves the machine. */
export const host = '127.0.0.1'

export class BenchConfigError extends Error {
  override name = 'BenchConfigError'
}

function positiveInteger(name: string, fallback: number, max: number, unit: string): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new BenchConfigError(`${name} must be a whole number of ${unit} from 1 to ${max}, got ${JSON.stringify(raw)}`)
  }
  return value
}

export const load = Object.freeze({
  /** Concurrent keep-alive connections per target (autocannon -c). */
  connections: 50,
  /** Measured seconds per target (autocannon -d); BENCH_DURATION overrides it for quick runs. */
  durationS: positiveInteger('BENCH_DURATION', 10, 600, 'seconds'),
  /**
   * Unmeasured seconds per target first, on the fresh server: JIT, lazy page chunks and socket pools settle before we
   * count. 2 s is 20 000+ requests on the slowest target here, far past V8's optimising tiers for a hot path, and
   * keeps 3 passes of every target inside the 15-minute budget.
   */
  warmUpS: 2,
  /** Passes over every target (a fresh server each time); the report gives the median pass. BENCH_PASSES overrides. */
  passes: positiveInteger('BENCH_PASSES', 3, 9, 'passes'),
  /** Probes of `/` while a server starts: as often as this, so the cold start is not rounded up by the probing. */
  coldProbeIntervalMs: 10,
  /** A response slower than this counts as an error (autocannon's timeout); far above any healthy latency here. */
  timeoutS: 10,
})

export const processLimits = Object.freeze({
  /** A server that does not answer its health check by then failed to start (a cold start takes 0.5-2 s on a busy machine). */
  startUpMs: 30_000,
  /** Between two health probes while a server starts. */
  probeIntervalMs: 20,
  /** One health probe gives up after this (a busy machine can take a while to answer the first page). */
  probeTimeoutMs: 5_000,
  /** SIGTERM first (Courier closes gracefully); SIGKILL after this. Courier's own grace period is 10 s. */
  stopGraceMs: 12_000,
  /** `npm run build` when dist/ is missing: a cold vite build here takes well under a minute. */
  buildMs: 120_000,
  /** `npm ci` of the peer (about 15 s with a warm npm cache, a minute or two without) and its `next build`. */
  peerInstallMs: 300_000,
  peerBuildMs: 300_000,
})

/**
 * Above this share of the machine's CPUs taken by other processes during a measured run, the report warns that the
 * numbers are skewed (a quiet machine shows well under 1 %).
 */
export const otherCpuWarningPercent = 5

/** Server log lines kept for the report (warn and above: the servers run at LOG_LEVEL=warn). */
export const keptLogLines = 200
