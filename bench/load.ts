/**
 * One target under load: a warm-up whose numbers are dropped, then the measured autocannon run, every response
 * judged (status and body). Latency is kept in microseconds here, because autocannon's own histogram counts whole
 * milliseconds, too coarse for pages that answer in a few.
 */
import autocannon from 'autocannon'
import { createHistogram } from 'node:perf_hooks'
import { load } from './config.ts'
import { otherCpuPercent, sampleCpu } from './other-load.ts'
import { judge, type Target } from './targets.ts'
import { startTtfbProbe } from './ttfb-probe.ts'

export interface TargetResult {
  name: string
  url: string
  expectedStatus: number
  markers: string[]
  durationS: number
  connections: number
  requests: number
  /** Mean of autocannon's per-second samples. */
  requestsPerSecond: number
  latencyMs: { p50: number; p99: number; mean: number; max: number }
  /** Time to first byte of a probe client's requests beside the load, one at a time (bench/ttfb-probe.ts). */
  ttfbMs: { p50: number; p90: number; samples: number }
  /** Connection errors and timeouts (no response at all). */
  errors: number
  timeouts: number
  /** Responses with the expected status whose body lacked a marker or the end of the document. */
  bodyMismatches: number
  /** Responses with another status than the expected one, by status. */
  unexpectedStatuses: Record<string, number>
  /** errors + body mismatches + unexpected statuses: every request that did not get the right page. */
  failed: number
  /** Share of the machine's CPUs other processes used during the measured run (null where not measurable). */
  otherCpuPercent: number | null
}

/** The running autocannon instance, so an interrupt can stop it. */
let current: autocannon.Instance | undefined

export function stopLoad(): void {
  current?.stop()
}

async function fire(options: autocannon.Options, onLatency?: (ms: number) => void): Promise<autocannon.Result> {
  const instance = autocannon(options)
  current = instance
  if (onLatency) instance.on('response', (_client, _status, _bytes, responseTimeMs) => onLatency(responseTimeMs))
  try {
    return await instance
  } finally {
    current = undefined
  }
}

const round = (value: number, digits = 2) => Number(value.toFixed(digits))

function lowerCaseNames(headers: Record<string, string>): Record<string, string> {
  const lowered: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers ?? {})) lowered[name.toLowerCase()] = value
  return lowered
}

/** @param ourPids the bench's own processes (itself and the servers): their CPU time is not "other" load */
export async function runTarget(target: Target, origin: string, ourPids: number[]): Promise<TargetResult> {
  const url = origin + target.path
  const common = {
    url,
    connections: load.connections,
    timeout: load.timeoutS,
    ...(target.headers ? { headers: target.headers } : {}),
  }
  await fire({ ...common, duration: load.warmUpS })

  let bodyMismatches = 0
  const unexpectedStatuses: Record<string, number> = {}
  const latencyUs = createHistogram()
  const cpuBefore = sampleCpu(ourPids)
  const probe = startTtfbProbe(url, target.headers)
  const result = await fire(
    {
      ...common,
      duration: load.durationS,
      requests: [
        {
          method: 'GET',
          path: target.path,
          ...(target.headers ? { headers: target.headers } : {}),
          onResponse(status, body, _context, headers) {
            // Header names as the server spelled them (Next writes Content-Length): judged by lower-case name.
            const verdict = judge(target, status, body, lowerCaseNames(headers))
            if (verdict === 'body-mismatch') bodyMismatches += 1
            else if (verdict === 'unexpected-status') unexpectedStatuses[status] = (unexpectedStatuses[status] ?? 0) + 1
          },
        },
      ],
    },
    (ms) => latencyUs.record(Math.max(1, Math.round(ms * 1000))),
  )
  const cpuAfter = sampleCpu(ourPids)
  const ttfbMs = await probe.stop()

  const unexpected = Object.values(unexpectedStatuses).reduce((sum, count) => sum + count, 0)
  const answered = latencyUs.count
  return {
    name: target.name,
    url,
    expectedStatus: target.expectedStatus,
    markers: target.markers,
    durationS: load.durationS,
    connections: load.connections,
    requests: answered,
    requestsPerSecond: round(result.requests.average, 1),
    latencyMs: {
      p50: answered ? round(latencyUs.percentile(50) / 1000) : 0,
      p99: answered ? round(latencyUs.percentile(99) / 1000) : 0,
      mean: answered ? round(latencyUs.mean / 1000) : 0,
      max: answered ? round(latencyUs.max / 1000) : 0,
    },
    ttfbMs,
    errors: result.errors,
    timeouts: result.timeouts,
    bodyMismatches,
    unexpectedStatuses,
    failed: result.errors + bodyMismatches + unexpected,
    otherCpuPercent: otherCpuPercent(cpuBefore, cpuAfter),
  }
}
