/**
 * The arithmetic of the report, kept pure so it is tested: medians of the passes, Courier ÷ Next ratios and the
 * goals docs/benchmarks.md reads, each met or not.
 */

/** The middle value (the mean of the two middle ones for an even count); null for no values. */
export function median(values: number[]): number | null {
  if (!values.length) return null
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** a ÷ b to 3 decimals; null when either side is missing or b is 0 (no ratio of nothing). */
export function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  if (a == null || b == null || b === 0) return null
  return Number((a / b).toFixed(3))
}

/**
 * a ÷ b for runs made in pairs (pass i of a beside pass i of b): the median of the pairs' ratios. Two servers run
 * back to back see the same speed of the host, which moved up to 2x from pass to pass on the shared machine, so the
 * ratio of each pair is steadier than the ratio of two medians taken over all passes. Null without a whole pair.
 */
export function pairedRatio(a: readonly (number | null)[], b: readonly (number | null)[]): number | null {
  const ratios = a.flatMap((value, index) => ratio(value, b[index]) ?? [])
  return ratios.length ? Number(median(ratios)!.toFixed(3)) : null
}

export interface Goal {
  /** What is compared, e.g. `dynamic page /status req/s, Courier ÷ Next`. */
  name: string
  /** The measured ratio or size. */
  value: number | null
  /** `>= 5`, `<= 0.5`, `<= 70000`... */
  goal: string
  /** null when the value could not be measured. */
  met: boolean | null
}

export function goal(name: string, value: number | null, comparison: '>=' | '<=', bound: number): Goal {
  const met = value === null ? null : comparison === '>=' ? value >= bound : value <= bound
  return { name, value, goal: `${comparison} ${bound}`, met }
}

/** Medians the goals are computed from (req/s per kind and server, cold start, first-load JS, peak RSS). */
export interface GoalInputs {
  rps: (server: 'courier' | 'next' | 'bare' | 'baseline', kind: string) => number | null
  /** The median peak RSS (MiB) of one server's target of that kind. */
  peakRss: (server: 'courier' | 'next', kind: string) => number | null
  /** Every kind of target the run loaded. */
  kinds: string[]
  coldStartMs: { courier: number | null; next: number | null }
  firstLoadJsGzipBytes: number | null
  /** First-load JS of / as a browser that accepts brotli receives it (Courier). */
  firstLoadJsSentBytes: number | null
  /** Bytes on the wire of a first visit to / in Chromium (document, scripts, styles, fonts). */
  firstVisitBytes: { courier: number | null; next: number | null }
  peakRssMiB: { courier: number | null; next: number | null }
  /** Courier ÷ the same build on the older Node, per kind, from paired passes (`pairedRatio`); else the medians'. */
  versusOlderNode?: (kind: string) => number | null
  /** The median time to first byte (ms) of a probe client beside the load (bench/ttfb-probe.ts). */
  ttfb?: (server: 'courier' | 'next', kind: string) => number | null
}

/** The worst of per-kind ratios (`max` for a ceiling, `min` for a floor); null when no kind has one. */
export function worstRatio(ratios: Array<number | null>, worst: 'max' | 'min'): number | null {
  const known = ratios.filter((value): value is number => value !== null)
  if (!known.length) return null
  return worst === 'max' ? Math.max(...known) : Math.min(...known)
}

/** The goals' table of docs/benchmarks.md "Latest results", in its order. */
export function evaluateGoals(inputs: GoalInputs): Goal[] {
  const versusNext = (kind: string) => ratio(inputs.rps('courier', kind), inputs.rps('next', kind))
  const rssVersusNext = worstRatio(
    inputs.kinds.map((kind) => ratio(inputs.peakRss('courier', kind), inputs.peakRss('next', kind))),
    'max',
  )
  // Null (not measured) unless BENCH_BASELINE_NODE ran the same build on an older Node beside it.
  const olderNodeRatio =
    inputs.versusOlderNode ?? ((kind: string) => ratio(inputs.rps('courier', kind), inputs.rps('baseline', kind)))
  const versusOlderNode = worstRatio(inputs.kinds.map(olderNodeRatio), 'min')
  return [
    goal('dynamic page /status req/s, Courier ÷ Next', versusNext('dynamic-page'), '>=', 5),
    goal(
      'dynamic page /status req/s, Courier ÷ bare Fastify floor',
      ratio(inputs.rps('courier', 'dynamic-page'), inputs.rps('bare', 'dynamic-page')),
      '>=',
      0.85,
    ),
    goal('static page / req/s, Courier ÷ Next', versusNext('static-page'), '>=', 15),
    goal('static page (a guide) req/s, Courier ÷ Next', versusNext('guide-page'), '>=', 15),
    goal('dynamic page data req/s, Courier ÷ Next', versusNext('dynamic-data'), '>=', 5),
    goal('static page data req/s, Courier ÷ Next', versusNext('static-data'), '>=', 10),
    goal('404 req/s, Courier ÷ Next', versusNext('not-found'), '>=', 5),
    goal('image cache hit req/s, Courier ÷ Next', versusNext('image-hit'), '>=', 1.5),
    goal(
      'image cache hit req/s, Courier ÷ @fastify/static',
      ratio(inputs.rps('courier', 'image-hit'), inputs.rps('bare', 'image-hit')),
      '>=',
      0.9,
    ),
    goal('cold start, Courier ÷ Next', ratio(inputs.coldStartMs.courier, inputs.coldStartMs.next), '<=', 0.5),
    goal('first-load JS of / (gzip bytes), Courier', inputs.firstLoadJsGzipBytes, '<=', 70_000),
    goal('peak RSS under load, Courier ÷ Next (the largest of any target)', rssVersusNext, '<=', 0.5),
    goal('static page / req/s with Accept-Encoding, Courier ÷ Next', versusNext('static-page+compressed'), '>=', 15),
    goal(
      'static page (a guide) req/s with Accept-Encoding, Courier ÷ Next',
      versusNext('guide-page+compressed'),
      '>=',
      15,
    ),
    goal(
      'dynamic page /status req/s with Accept-Encoding, Courier ÷ Next',
      versusNext('dynamic-page+compressed'),
      '>=',
      5,
    ),
    goal('static page data req/s with Accept-Encoding, Courier ÷ Next', versusNext('static-data+compressed'), '>=', 10),
    goal(
      'dynamic page data req/s with Accept-Encoding, Courier ÷ Next',
      versusNext('dynamic-data+compressed'),
      '>=',
      10,
    ),
    goal('404 req/s with Accept-Encoding, Courier ÷ Next', versusNext('not-found+compressed'), '>=', 5),
    goal(
      'static page / req/s, compressed ÷ identity, Courier',
      ratio(inputs.rps('courier', 'static-page+compressed'), inputs.rps('courier', 'static-page')),
      '>=',
      0.8,
    ),
    goal('first-load JS of / as sent (brotli bytes), Courier', inputs.firstLoadJsSentBytes, '<=', 62_000),
    goal(
      'bytes on the wire, first visit to /, Courier ÷ Next',
      ratio(inputs.firstVisitBytes.courier, inputs.firstVisitBytes.next),
      '<=',
      0.6,
    ),
    goal('req/s, Courier ÷ the same build on the older Node (the lowest of any target)', versusOlderNode, '>=', 0.95),
    // /status is partly prerendered (docs/rendering.md "Partial prerendering"): its shell kept, its holes per request.
    goal(
      'partly prerendered /status req/s ÷ static /, Courier',
      ratio(inputs.rps('courier', 'dynamic-page'), inputs.rps('courier', 'static-page')),
      '>=',
      0.5,
    ),
    goal('partly prerendered /status req/s, Courier ÷ Next', versusNext('dynamic-page'), '>=', 15),
    goal(
      '/status time to first byte under load ÷ /, Courier',
      ratio(inputs.ttfb?.('courier', 'dynamic-page') ?? null, inputs.ttfb?.('courier', 'static-page') ?? null),
      '<=',
      1.5,
    ),
  ]
}

/**
 * The CPU time (user and system, µs) of one call of `work`: the median over `rounds` rounds of `perRound` calls each,
 * with the length of what it returned (the bytes a coding sends).
 */
export function cpuPerCall(work: () => Buffer, rounds: number, perRound: number): { us: number; bytes: number } {
  const samples: number[] = []
  let bytes = 0
  for (let round = 0; round < rounds; round++) {
    const started = process.cpuUsage()
    for (let index = 0; index < perRound; index++) bytes = work().length
    const used = process.cpuUsage(started)
    samples.push((used.user + used.system) / perRound)
  }
  return { us: median(samples)!, bytes }
}
