/**
 * The arithmetic and the arguments of `npm run bench -- --ab <other>` (bench/ab.ts), kept pure so they are tested:
 * which checkout runs first in each pass, the medians' ratio per target, which targets are run again, and the table.
 */
import { median, ratio } from './stats.ts'

/**
 * A target whose req/s after ÷ before is under this is run again, once
 * (docs/benchmarks.md "A/B: before and after a change").
 */
export const abFloor = 0.95

/** `after`: the checkout the bench runs from; `before`: the other one, named by `--ab`. */
export type AbSide = 'before' | 'after'

export class AbArgumentError extends Error {
  override name = 'AbArgumentError'
}

/**
 * The bench's command-line arguments: none (the side-by-side run), or `--ab <checkout folder or git ref>` (also
 * `--ab=<…>`), once. Anything else is refused before the run starts.
 */
export function parseAbArguments(argv: readonly string[]): { other: string } | undefined {
  let other: string | undefined
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index]!
    let value: string | undefined
    if (argument === '--ab') {
      value = argv[index + 1]
      index += 1
    } else if (argument.startsWith('--ab=')) {
      value = argument.slice('--ab='.length)
    } else {
      const told = JSON.stringify(argument)
      throw new AbArgumentError(`unknown argument ${told}: the bench takes --ab <checkout or git ref> only`)
    }
    if (value === undefined || value.trim() === '' || value.startsWith('-')) {
      throw new AbArgumentError('--ab needs the other checkout: a folder holding one, or a git ref (--ab main)')
    }
    if (other !== undefined) throw new AbArgumentError('--ab is given once: one other checkout to compare with')
    other = value.trim()
  }
  return other === undefined ? undefined : { other }
}

/**
 * The order of the two checkouts in a pass (1-based): before first in odd passes, after first in even ones, so
 * neither always meets the host a few seconds warmer or later than the other.
 */
export function sidesInPass(pass: number): readonly [AbSide, AbSide] {
  return pass % 2 === 1 ? ['before', 'after'] : ['after', 'before']
}

/** One target's req/s, pass by pass, on each side. */
export interface AbRuns {
  target: string
  before: number[]
  after: number[]
}

export interface AbComparison {
  target: string
  beforeRps: number | null
  afterRps: number | null
  /** Median after ÷ median before; null when a side has no pass. */
  ratio: number | null
  passes: number
}

/** Median req/s of each side and their ratio, after ÷ before. */
export function compareRuns(runs: AbRuns): AbComparison {
  const beforeRps = median(runs.before)
  const afterRps = median(runs.after)
  const passes = Math.min(runs.before.length, runs.after.length)
  return { target: runs.target, beforeRps, afterRps, ratio: ratio(afterRps, beforeRps), passes }
}

/** Whether a target is run again: its ratio is under the floor (a target without a ratio is not: nothing to judge). */
export function needsRerun(comparison: AbComparison): boolean {
  return comparison.ratio !== null && comparison.ratio < abFloor
}

/** A target's result: its first comparison and, when it was under the floor, the re-run's, which is the verdict. */
export interface AbResult {
  first: AbComparison
  rerun?: AbComparison
}

/** The comparison that decides: the re-run's when there was one. */
export function verdictOf(result: AbResult): AbComparison {
  return result.rerun ?? result.first
}

const formatRps = (value: number | null) => (value === null ? '-' : value.toFixed(1))
const formatRatio = (value: number | null) => (value === null ? '-' : value.toFixed(3))

/** The table printed at the end of an A/B run: req/s before and after, their ratio, the re-run's, met or not. */
export function formatAbTable(results: readonly AbResult[]): string {
  const lines = [
    `| target | before req/s | after req/s | after ÷ before | re-run | >= ${abFloor} |`,
    '| --- | ---: | ---: | ---: | ---: | --- |',
  ]
  for (const result of results) {
    const { first, rerun } = result
    const decided = verdictOf(result).ratio
    const met = decided === null ? 'not measured' : decided >= abFloor ? 'met' : 'not met'
    const rerunText = rerun ? formatRatio(rerun.ratio) : ''
    const rps = `${formatRps(first.beforeRps)} | ${formatRps(first.afterRps)}`
    lines.push(`| ${first.target} | ${rps} | ${formatRatio(first.ratio)} | ${rerunText} | ${met} |`)
  }
  const decided = results.flatMap((result) => verdictOf(result).ratio ?? [])
  const lowest = decided.length ? Math.min(...decided) : null
  lines.push('', `Lowest after ÷ before: ${formatRatio(lowest)} (goal >= ${abFloor}).`)
  return `${lines.join('\n')}\n`
}
