/**
 * The bench's report: a table for a person (stdout) and bench/results/latest.json for tools and for comparing runs.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { otherCpuWarningPercent } from './config.ts'
import type { FirstLoadJs } from './first-load-js.ts'
import type { FilterCostSample } from './filter-cost.ts'
import type { FloorCheck } from './floor-check.ts'
import type { ColdTransform } from './images.ts'
import type { TargetResult } from './load.ts'
import type { ServerOutput } from './processes.ts'

export interface BenchReport {
  date: string
  machine: {
    platform: string
    release: string
    arch: string
    cpuModel: string
    cpus: number
    memoryGiB: number
    /**
     * os.loadavg() (1, 5, 15 min) before the first server starts and after the last target: load generator and
     * servers share these CPUs, and anything else running on them skews every number.
     */
    loadAverage: { start: number[]; end: number[] }
  }
  node: string
  load: { connections: number; durationS: number; warmUpS: number; host: string }
  build: 'built' | 'present'
  targets: TargetResult[]
  /** Courier's /status throughput over the bare server's: 1 would mean no framework overhead at all. */
  courierOverBareStatus: number | null
  /** Courier / with the request filter over Courier / without it (bench/unfiltered-server.ts): the filter's price. */
  /** `/` with ÷ without the request filter, in alternating rounds; `ratio` is the median of the rounds'. */
  filterCost: {
    rounds: Array<{ filteredRps: number; unfilteredRps: number; ratio: number }>
    ratio: number
    costPercent: number
  } | null
  /** The same, measured in one process in CPU time (bench/filter-cost.ts): much less sensitive to a busy machine. */
  filterInProcess: FilterCostSample
  floorCheck: FloorCheck
  firstLoadJs: FirstLoadJs
  images: {
    /** Size of the cached image both servers send. */
    bytes: number
    /** Courier's cached image hits over @fastify/static serving the same bytes (goal: at least 0.9). */
    courierHitOverStatic: number | null
    coldTransform: ColdTransform
  }
  /** What each server logged (at warn and above) during the run. */
  serverLogs: Record<string, ServerOutput>
}

export function loadAverage(): number[] {
  return os.loadavg().map((value) => Number(value.toFixed(2)))
}

export function describeMachine(loadAtStart: number[]): BenchReport['machine'] {
  const cpus = os.cpus()
  return {
    platform: os.platform(),
    release: os.release(),
    arch: os.arch(),
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpus: cpus.length,
    memoryGiB: Number((os.totalmem() / 1024 ** 3).toFixed(1)),
    loadAverage: { start: loadAtStart, end: loadAverage() },
  }
}

function pad(cells: string[], widths: number[]): string {
  return cells.map((cell, index) => (index === 0 ? cell.padEnd(widths[index]!) : cell.padStart(widths[index]!))).join('  ')
}

function failures(result: TargetResult): string {
  const parts: string[] = []
  if (result.errors) parts.push(`${result.errors} connection errors (${result.timeouts} timeouts)`)
  if (result.bodyMismatches) parts.push(`${result.bodyMismatches} wrong bodies`)
  for (const [status, count] of Object.entries(result.unexpectedStatuses)) parts.push(`${count} × status ${status}`)
  return parts.join(', ')
}

/** kB as Vite prints them (1000 bytes), so the sizes read like the build output. */
const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`

export function formatReport(report: BenchReport): string {
  const header = ['target', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'other CPU %']
  const rows = report.targets.map((result) => [
    result.name,
    result.requestsPerSecond.toFixed(1),
    result.latencyMs.p50.toFixed(2),
    result.latencyMs.p99.toFixed(2),
    String(result.failed),
    result.otherCpuPercent === null ? 'n/a' : result.otherCpuPercent.toFixed(1),
  ])
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column]!.length)))
  const lines = [
    `Courier bench: ${report.load.connections} connections, ${report.load.durationS} s per target after ` +
      `${report.load.warmUpS} s of warm-up; node ${report.node}, ${report.machine.cpus} × ${report.machine.cpuModel}`,
    '',
    pad(header, widths),
    pad(widths.map((width) => '-'.repeat(width)), widths),
    ...rows.map((row) => pad(row, widths)),
  ]
  for (const result of report.targets) {
    const detail = failures(result)
    if (detail) lines.push(`  ${result.name}: ${detail}`)
  }
  const disturbed = report.targets.filter((result) => (result.otherCpuPercent ?? 0) > otherCpuWarningPercent)
  if (disturbed.length) {
    lines.push(
      `  warning: other processes used over ${otherCpuWarningPercent} % of the CPUs during ` +
        `${disturbed.map((result) => result.name).join(', ')}: those numbers are skewed, run again on a quiet machine`,
    )
  }
  lines.push('')
  const ratio = report.courierOverBareStatus
  lines.push(`Courier /status ÷ bare /status (req/s): ${ratio === null ? 'n/a (no bare throughput)' : ratio.toFixed(3)}`)
  const filter = report.filterCost
  lines.push(
    filter
      ? `Request filter on / (req/s with ÷ without, median of ${filter.rounds.length} alternating rounds: ` +
          `${filter.rounds.map((round) => round.ratio.toFixed(3)).join(', ')}): ${filter.ratio.toFixed(3)}, ` +
          `a cost of ${filter.costPercent} % (goal: under 5 %)`
      : 'Request filter on /: n/a (no throughput)',
  )
  const inProcess = report.filterInProcess
  lines.push(
    `Request filter in process, CPU per request on ${inProcess.path}: ${inProcess.filteredUs} µs with, ` +
      `${inProcess.unfilteredUs} µs without (${inProcess.costPercent} %); the hook alone adds ${inProcess.hookUs} µs ` +
      `(${inProcess.hookSharePercent} % of the page)`,
  )
  if (!report.floorCheck.sameDocument) {
    lines.push(`  warning: the bare server's /status differs from Courier's (see floorCheck in the JSON)`)
  }
  const imageRatio = report.images.courierHitOverStatic
  lines.push(
    `Courier image cache hit ÷ @fastify/static, same ${report.images.bytes} bytes (req/s): ` +
      `${imageRatio === null ? 'n/a' : imageRatio.toFixed(3)} (goal >= 0.9)`,
  )
  const cold = report.images.coldTransform
  lines.push(
    `Cold transform ${cold.source} -> ${cold.output}: median ${cold.medianMs} ms of ${cold.runs} (${cold.ms.join(', ')} ms)`,
  )
  const js = report.firstLoadJs
  lines.push(
    `First-load JS of ${js.page}: ${kB(js.totalGzipBytes)} gzip (${kB(js.totalBytes)} raw) in ${js.scripts.length} scripts`,
  )
  for (const script of js.scripts) lines.push(`  ${script.file} (${script.role}): ${kB(script.gzipBytes)} gzip`)
  for (const [name, output] of Object.entries(report.serverLogs)) {
    if (output.total) lines.push(`${name} logged ${output.total} lines at warn or above (serverLogs in the JSON)`)
  }
  return lines.join('\n') + '\n'
}

/** Written whole or not at all: a temporary file renamed over the last one. */
export async function writeReport(file: string, report: BenchReport): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true })
  const temporary = `${file}.tmp`
  await writeFile(temporary, JSON.stringify(report, null, 2) + '\n')
  await rename(temporary, file)
}
