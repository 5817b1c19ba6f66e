/**
 * `npm run bench:micro`: the in-process optimizations of docs/performance.md, each against the plain way it replaced,
 * in one process so both sides share every condition. Each case runs its two sides in alternating rounds of a fixed
 * number of calls, timed in CPU time of this process; the median round of each side is compared. Prints a table on
 * stdout and one JSON line per case on stderr. A few seconds in all; no server, no port.
 *
 * What a tight loop in an idle process shows is a floor: under load, with caches cold from a render, a call costs more
 * (docs/performance.md says where that was measured). A case whose two sides come out within the rounds' spread is
 * reported as "within the noise".
 */
import { randomFillSync } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { Histogram, Registry } from 'prom-client'
import { negotiateCoding, parsedAcceptEncoding } from '../src/compression/negotiate.ts'
import { LabelledHistogram } from '../src/metrics/labelled-series.ts'
import { readProcessMemory } from '../src/pages/process-memory.ts'
import { cspTemplate, createNonceStep } from '../src/site-policy.ts'

/** Alternating rounds per side: enough for a stable median on a shared machine. */
const rounds = 21
/** Calls per round, per case: each round lasts some milliseconds, far above the clock's resolution. */
const callsPerRound = {
  nonce: 20_000,
  acceptEncoding: 200_000,
  statusMemory: 2_000,
  metricRecording: 200_000,
} as const

interface Side {
  name: string
  call: () => unknown
}

interface CaseResult {
  case: string
  optimized: string
  plain: string
  optimizedNs: number
  plainNs: number
  /** Spread of the optimized side's rounds (interquartile range over the median), a share. */
  spread: number
  savedNs: number
  verdict: 'saves' | 'within the noise'
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!
}

/** CPU time of one call, in nanoseconds, for one round of `calls` calls. */
function timeRound(side: Side, calls: number): number {
  let sink: unknown
  const started = process.cpuUsage()
  for (let index = 0; index < calls; index++) sink = side.call()
  const used = process.cpuUsage(started)
  // The last result is read, so V8 cannot drop the calls as dead code.
  if (sink === Symbol.for('never')) process.stdout.write('')
  return ((used.user + used.system) * 1000) / calls
}

function compare(name: string, calls: number, optimized: Side, plain: Side): CaseResult {
  // Warm-up: both sides reach V8's optimising tier before anything counts.
  for (let round = 0; round < 3; round++) {
    timeRound(optimized, calls)
    timeRound(plain, calls)
  }
  const fast: number[] = []
  const slow: number[] = []
  for (let round = 0; round < rounds; round++) {
    // The order alternates, so neither side always runs with the other's garbage to collect.
    if (round % 2 === 0) {
      fast.push(timeRound(optimized, calls))
      slow.push(timeRound(plain, calls))
    } else {
      slow.push(timeRound(plain, calls))
      fast.push(timeRound(optimized, calls))
    }
  }
  const optimizedNs = quantile(fast, 0.5)
  const plainNs = quantile(slow, 0.5)
  const spread = Math.max(
    (quantile(fast, 0.75) - quantile(fast, 0.25)) / optimizedNs,
    (quantile(slow, 0.75) - quantile(slow, 0.25)) / plainNs,
  )
  const savedNs = plainNs - optimizedNs
  // Saves: the plain side's median above the optimized side's by more than both sides' spread.
  const verdict = savedNs > spread * plainNs ? 'saves' : 'within the noise'
  return { case: name, optimized: optimized.name, plain: plain.name, optimizedNs, plainNs, spread, savedNs, verdict }
}

/** A request object as far as the nonce step reads and writes it. */
function fakeRequest(): FastifyRequest {
  return {} as FastifyRequest
}

function nonceCase(): CaseResult {
  const pooled = createNonceStep()
  const request = fakeRequest()
  const { parts } = cspTemplate()
  return compare(
    'CSP nonce and its header',
    callsPerRound.nonce,
    { name: 'pooled fill (256 nonces a call)', call: () => pooled(request, { pathname: '/', pageData: false }) },
    {
      name: 'randomFillSync per request',
      call: () => {
        const nonce = randomFillSync(Buffer.alloc(16)).toString('base64')
        return { action: 'continue', headers: { 'content-security-policy': parts.join(nonce) } }
      },
    },
  )
}

function acceptEncodingCase(): CaseResult {
  const offered = ['br', 'gzip'] as const
  const cached = 'gzip, deflate, br, zstd'
  // The sender's cache of parsed headers (src/delivery/send.ts); without one, a header is parsed on every call.
  const parsed = parsedAcceptEncoding()
  negotiateCoding(cached, offered, parsed)
  return compare(
    'Accept-Encoding negotiation',
    callsPerRound.acceptEncoding,
    { name: 'parsed once per distinct header', call: () => negotiateCoding(cached, offered, parsed) },
    { name: 'parsed per request', call: () => negotiateCoding(cached, offered) },
  )
}

function statusMemoryCase(): CaseResult {
  return compare(
    'status page memory figures',
    callsPerRound.statusMemory,
    { name: 'V8 heap figures, RSS at most every 100 ms', call: () => readProcessMemory() },
    { name: 'process.memoryUsage() per request', call: () => process.memoryUsage() },
  )
}

function metricRecordingCase(): CaseResult {
  const buckets = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10]
  const labelNames = ['route', 'method', 'status_class']
  const labelled = new LabelledHistogram({
    name: 'labelled',
    help: 'labelled',
    labelNames,
    buckets,
    registers: [new Registry()],
  })
  const promClient = new Histogram({
    name: 'prom_client',
    help: 'prom-client',
    labelNames,
    buckets,
    registers: [new Registry()],
  })
  return compare(
    'one response recorded in a histogram',
    callsPerRound.metricRecording,
    { name: 'labelled series (one map per label)', call: () => labelled.observe(0.002, '/guides/:slug', 'GET', '2xx') },
    {
      name: "prom-client's Histogram.observe",
      call: () => promClient.observe({ route: '/guides/:slug', method: 'GET', status_class: '2xx' }, 0.002),
    },
  )
}

function formatNs(ns: number): string {
  return ns >= 1000 ? `${(ns / 1000).toFixed(2)} µs` : `${ns.toFixed(0)} ns`
}

const results = [nonceCase(), acceptEncodingCase(), statusMemoryCase(), metricRecordingCase()]
const lines = [
  `Node ${process.version}, ${rounds} alternating rounds per side, median round, CPU time of this process per call`,
  '',
  '| case | optimized | plain | saved | spread | verdict |',
  '| --- | ---: | ---: | ---: | ---: | --- |',
  ...results.map(
    (result) =>
      `| ${result.case} | ${formatNs(result.optimizedNs)} | ${formatNs(result.plainNs)} | ${formatNs(result.savedNs)} | ` +
      `${(result.spread * 100).toFixed(0)} % | ${result.verdict} |`,
  ),
]
process.stdout.write(`${lines.join('\n')}\n`)
for (const result of results) process.stderr.write(`${JSON.stringify(result)}\n`)
