/**
 * The bench's report: a table for a person (stdout), bench/results/latest.json for tools and for comparing runs, and
 * the results block of docs/benchmarks.md, written from the same report.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { otherCpuWarningPercent } from './config.ts'
import type { FirstLoadJs } from './first-load-js.ts'
import type { WireBytes } from './wire-bytes.ts'
import type { FloorCheck } from './floor-check.ts'
import type { ColdTransform } from './images.ts'
import type { TargetResult } from './load.ts'
import type { ServerOutput } from './processes.ts'
import { rewriteBlock } from './readme-block.ts'
import type { Goal } from './stats.ts'
import type { ServerName, TargetKind } from './targets.ts'

/** One target over every pass, and the medians the report compares. */
export interface TargetSummary {
  name: string
  server: ServerName
  kind: TargetKind
  path: string
  passes: Array<TargetResult & { peakRssMiB: number | null }>
  median: {
    requestsPerSecond: number | null
    p50Ms: number | null
    p99Ms: number | null
    ttfbP50Ms: number | null
    peakRssMiB: number | null
  }
  /** Every failed request of every pass. */
  failed: number
}

export interface PageSize {
  page: string
  courierBytes: number
  nextBytes: number
  /** |courier − next| ÷ courier, in percent. */
  differencePercent: number
  withinTenPercent: boolean
}

export interface BenchReport {
  date: string
  machine: {
    platform: string
    release: string
    arch: string
    cpuModel: string
    cpus: number
    memoryGiB: number
    /** os.loadavg() (1, 5, 15 min) at the start and at the end: anything else running skews every number. */
    loadAverage: { start: number[]; end: number[] }
  }
  node: string
  next: { version: string; buildId: string }
  load: { connections: number; durationS: number; warmUpS: number; passes: number; host: string }
  /** What this run had to do first, and the whole run's wall time. */
  setup: { courierBuild: 'built' | 'present'; peerInstall: 'installed' | 'present'; peerBuild: 'built' | 'present' }
  wallTimeS: number
  targets: TargetSummary[]
  /** Courier ÷ Next per kind of target, from the medians. */
  comparisons: Array<{
    kind: TargetKind
    courierRps: number | null
    nextRps: number | null
    ratio: number | null
    /** Peak RSS, Courier ÷ Next, for this kind of target. */
    rssRatio: number | null
    /** With BENCH_BASELINE_NODE: the same build's req/s on that Node, and Courier's ÷ it. */
    baselineRps?: number | null
    versusBaseline?: number | null
  }>
  /** With BENCH_BASELINE_NODE: the older Node the same build also ran on, and its cold start (median). */
  baseline?: { node: string; coldStartMs: number | null }
  coldStart: {
    courier: { ms: number[]; medianMs: number | null }
    next: { ms: number[]; medianMs: number | null }
    ratio: number | null
  }
  firstLoadJs: { courier: FirstLoadJs; next: FirstLoadJs }
  /** A first visit to / in Chromium, by resource type (null where Chromium is missing). */
  firstVisit: { courier: WireBytes | null; next: WireBytes | null }
  /** The largest median peak RSS over each server's targets (MiB). */
  peakRssMiB: { courier: number | null; next: number | null; ratio: number | null }
  pageSizes: PageSize[]
  /** Whether each path gets the filter's CSP on both servers (the middleware matcher mirrors the exclusions). */
  policyParity: Array<{ path: string; courier: boolean; next: boolean }>
  goals: Goal[]
  floorCheck: FloorCheck
  images: { courierBytes: number; nextBytes: number; coldTransform: ColdTransform }
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
  return cells
    .map((cell, index) => (index === 0 ? cell.padEnd(widths[index]!) : cell.padStart(widths[index]!)))
    .join('  ')
}

/** kB as Vite prints them (1000 bytes), so the sizes read like the build output. */
const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`
const fixed = (value: number | null, digits: number) => (value === null ? 'n/a' : value.toFixed(digits))

function failures(summary: TargetSummary): string {
  const parts: string[] = []
  for (const [index, pass] of summary.passes.entries()) {
    const bits: string[] = []
    if (pass.errors) bits.push(`${pass.errors} connection errors (${pass.timeouts} timeouts)`)
    if (pass.bodyMismatches) bits.push(`${pass.bodyMismatches} wrong bodies`)
    for (const [status, count] of Object.entries(pass.unexpectedStatuses)) bits.push(`${count} × status ${status}`)
    if (bits.length) parts.push(`pass ${index + 1}: ${bits.join(', ')}`)
  }
  return parts.join('; ')
}

/** The targets as a table (text or Markdown): medians of the passes. */
function targetRows(report: BenchReport): { header: string[]; rows: string[][] } {
  const header = ['target', 'req/s', 'p50 ms', 'p99 ms', 'TTFB p50 ms', 'errors', 'peak RSS MiB']
  const rows = report.targets.map((target) => [
    target.name,
    fixed(target.median.requestsPerSecond, 1),
    fixed(target.median.p50Ms, 2),
    fixed(target.median.p99Ms, 2),
    fixed(target.median.ttfbP50Ms, 2),
    String(target.failed),
    fixed(target.median.peakRssMiB, 1),
  ])
  return { header, rows }
}

function goalRows(report: BenchReport): string[][] {
  return report.goals.map((entry) => [
    entry.name,
    entry.value === null ? 'n/a' : String(entry.value),
    entry.goal,
    entry.met === null ? 'not measured' : entry.met ? 'met' : 'not met',
  ])
}

export function formatReport(report: BenchReport): string {
  const { header, rows } = targetRows(report)
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column]!.length)))
  const lines = [
    `Courier bench: ${report.load.connections} connections, ${report.load.durationS} s per target after ` +
      `${report.load.warmUpS} s of warm-up, a fresh server per target, median of ${report.load.passes} passes; ` +
      `node ${report.node}, Next.js ${report.next.version}, ${report.machine.cpus} × ${report.machine.cpuModel}`,
    '',
    pad(header, widths),
    pad(
      widths.map((width) => '-'.repeat(width)),
      widths,
    ),
    ...rows.map((row) => pad(row, widths)),
  ]
  for (const target of report.targets) {
    const detail = failures(target)
    if (detail) lines.push(`  ${target.name}: ${detail}`)
  }
  const disturbed = report.targets.filter((target) =>
    target.passes.some((pass) => (pass.otherCpuPercent ?? 0) > otherCpuWarningPercent),
  )
  if (disturbed.length) {
    lines.push(
      `  warning: other processes used over ${otherCpuWarningPercent} % of the CPUs during ` +
        `${disturbed.map((target) => target.name).join(', ')}: those numbers are skewed, run again on a quiet machine`,
    )
  }
  lines.push('', 'Courier ÷ Next (req/s, medians; peak RSS):')
  for (const comparison of report.comparisons) {
    lines.push(
      `  ${comparison.kind}: ${fixed(comparison.courierRps, 1)} ÷ ${fixed(comparison.nextRps, 1)} = ${fixed(comparison.ratio, 2)}; ` +
        `RSS ${fixed(comparison.rssRatio, 2)}`,
    )
  }
  if (report.baseline) {
    lines.push(
      '',
      `Courier on ${report.node} ÷ the same build on ${report.baseline.node} (req/s; the median of each pass's ratio, the two run back to back):`,
    )
    for (const comparison of report.comparisons) {
      lines.push(
        `  ${comparison.kind}: ${fixed(comparison.courierRps, 1)} ÷ ${fixed(comparison.baselineRps ?? null, 1)} = ${fixed(comparison.versusBaseline ?? null, 3)}`,
      )
    }
    lines.push(`  cold start on ${report.baseline.node}: ${fixed(report.baseline.coldStartMs, 0)} ms`)
  }
  const cold = report.coldStart
  lines.push(
    `Cold start (spawn to first 200 of /, median of ${cold.courier.ms.length} and ${cold.next.ms.length} fresh starts): Courier ${fixed(cold.courier.medianMs, 0)} ms, ` +
      `Next ${fixed(cold.next.medianMs, 0)} ms, ratio ${fixed(cold.ratio, 2)}`,
  )
  const js = report.firstLoadJs
  lines.push(
    `First-load JS of /: Courier ${kB(js.courier.totalGzipBytes)} gzip (${kB(js.courier.totalSentBytes)} as sent, brotli) in ` +
      `${js.courier.scripts.length} scripts, Next ${kB(js.next.totalGzipBytes)} gzip in ${js.next.scripts.length} scripts`,
  )
  lines.push(`First visit to / in Chromium, bytes on the wire: ${firstVisitLine(report)}`)
  lines.push(
    `Peak RSS (largest median of any target): Courier ${fixed(report.peakRssMiB.courier, 1)} MiB, ` +
      `Next ${fixed(report.peakRssMiB.next, 1)} MiB, ratio ${fixed(report.peakRssMiB.ratio, 2)}`,
  )
  for (const size of report.pageSizes) {
    lines.push(
      `  ${size.withinTenPercent ? 'page size' : 'warning: page size differs by more than 10 %:'} ${size.page}: ` +
        `Courier ${size.courierBytes} B, Next ${size.nextBytes} B (${size.differencePercent} %)`,
    )
  }
  const mismatched = report.policyParity.filter((entry) => entry.courier !== entry.next)
  lines.push(
    mismatched.length
      ? `  warning: the servers filter different paths: ${mismatched.map((entry) => entry.path).join(', ')}`
      : `Request filter parity: both servers filter the same ${report.policyParity.length} paths`,
  )
  if (!report.floorCheck.sameDocument)
    lines.push(`  warning: the bare server's /status differs from Courier's (floorCheck in the JSON)`)
  lines.push('', 'Goals:')
  for (const row of goalRows(report)) lines.push(`  ${row[3]!.padEnd(12)} ${row[0]}: ${row[1]} (goal ${row[2]})`)
  for (const [name, output] of Object.entries(report.serverLogs)) {
    if (output.total)
      lines.push(
        `${name} printed ${output.total} lines (Courier and bare log at warn and above; serverLogs in the JSON)`,
      )
  }
  lines.push(`Wall time: ${report.wallTimeS} s`)
  return lines.join('\n') + '\n'
}

const markdownRow = (cells: string[]) => `| ${cells.join(' | ')} |`

/** `Courier 130.4 kB (document 4.9, scripts 75.3, ...), Next ...`. */
function firstVisitLine(report: BenchReport): string {
  const one = (label: string, visit: WireBytes | null) =>
    visit
      ? `${label} ${kB(visit.total)} (${Object.entries(visit.byType)
          .map(([type, bytes]) => `${type} ${kB(bytes)}`)
          .join(', ')})`
      : `${label} not measured (no Chromium)`
  return `${one('Courier', report.firstVisit.courier)}, ${one('Next', report.firstVisit.next)}`
}

/** The results block of docs/benchmarks.md: the table, the ratios and the goals of this report. */
export function formatReadmeBlock(report: BenchReport): string {
  const { header, rows } = targetRows(report)
  const lines = [
    `Last run: ${report.date.slice(0, 10)}, ${report.machine.cpus} × ${report.machine.cpuModel}, node ${report.node}, ` +
      `Next.js ${report.next.version}; ${report.load.connections} connections, ${report.load.durationS} s per target after ` +
      `${report.load.warmUpS} s of warm-up, median of ${report.load.passes} passes; whole run ${report.wallTimeS} s. ` +
      `Load average at start ${report.machine.loadAverage.start.join(', ')}.`,
    '',
    markdownRow(header),
    markdownRow(header.map((_, index) => (index === 0 ? '---' : '---:'))),
    ...rows.map(markdownRow),
    '',
    markdownRow(['goal', 'measured', 'target', 'result']),
    markdownRow(['---', '---:', '---', '---']),
    ...goalRows(report).map(markdownRow),
    '',
    `Cold start: Courier ${fixed(report.coldStart.courier.medianMs, 0)} ms, Next ${fixed(report.coldStart.next.medianMs, 0)} ms. ` +
      `First-load JS of /: Courier ${kB(report.firstLoadJs.courier.totalGzipBytes)}, Next ${kB(report.firstLoadJs.next.totalGzipBytes)} (gzip); ` +
      `Courier as sent (brotli) ${kB(report.firstLoadJs.courier.totalSentBytes)}. ` +
      `First visit to / in Chromium, bytes on the wire: ${firstVisitLine(report)}. ` +
      `Peak RSS: Courier ${fixed(report.peakRssMiB.courier, 1)} MiB, Next ${fixed(report.peakRssMiB.next, 1)} MiB.`,
  ]
  const disturbed = report.targets.filter((target) =>
    target.passes.some((pass) => (pass.otherCpuPercent ?? 0) > otherCpuWarningPercent),
  )
  if (disturbed.length) {
    lines.push(
      '',
      `Other processes used over ${otherCpuWarningPercent} % of the CPUs during ${disturbed.length} of ` +
        `${report.targets.length} targets: this run's numbers are skewed; only a run on a quiet machine counts.`,
    )
  }
  const offSize = report.pageSizes.filter((size) => !size.withinTenPercent)
  if (offSize.length) {
    lines.push(
      '',
      `Page sizes off by more than 10 % (Next's fixed script tags, see bench/README.md): ` +
        offSize.map((size) => `${size.page} ${size.courierBytes} B vs ${size.nextBytes} B`).join(', ') +
        '.',
    )
  }
  return lines.join('\n')
}

/** Written whole or not at all: a temporary file renamed over the last one. */
export async function writeReport(file: string, report: BenchReport): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true })
  const temporary = `${file}.tmp`
  await writeFile(temporary, JSON.stringify(report, null, 2) + '\n')
  await rename(temporary, file)
}

/** Rewrites the results block of docs/benchmarks.md from the report (nothing else in the file changes). */
export async function updateReadme(file: string, report: BenchReport): Promise<void> {
  const readme = await readFile(file, 'utf8')
  const next = rewriteBlock(readme, formatReadmeBlock(report))
  if (next !== readme) await writeFile(file, next)
}
