import type { Metric, Registry } from 'prom-client'

type Labels = Readonly<Record<string, string>>
type Level = Map<string, unknown>

/**
 * The series of one metric, reached through one map per label. prom-client's `observe`/`inc` validate the labels
 * object and build and sort a key string from it on every call (about 1 µs a response, docs/performance.md "Labelled
 * series"); here a recording is two or three map reads on strings Courier holds (route templates, Node's method names,
 * fixed words) and allocates nothing once the series exists. The number of series stays what the label values bound it
 * to.
 */
class SeriesIndex<S> {
  readonly series: S[] = []
  readonly #root: Level = new Map()
  readonly #labelNames: readonly string[]
  readonly #create: (labels: Labels) => S

  constructor(labelNames: readonly string[], create: (labels: Labels) => S) {
    if (labelNames.length < 1 || labelNames.length > 3) {
      throw new RangeError('a labelled series takes one to three labels')
    }
    this.#labelNames = labelNames
    this.#create = create
  }

  /** The series of these label values (as many as label names, in their order), made on first use. */
  find(first: string, second = '', third = ''): S {
    const depth = this.#labelNames.length
    let level = this.#root
    if (depth > 1) level = this.#down(level, first)
    if (depth > 2) level = this.#down(level, second)
    const last = depth === 1 ? first : depth === 2 ? second : third
    let found = level.get(last) as S | undefined
    if (found === undefined) {
      const values = [first, second, third]
      const labels: Record<string, string> = {}
      this.#labelNames.forEach((name, index) => (labels[name] = values[index]!))
      found = this.#create(Object.freeze(labels))
      level.set(last, found)
      this.series.push(found)
    }
    return found
  }

  clear(): void {
    this.#root.clear()
    this.series.length = 0
  }

  #down(level: Level, value: string): Level {
    let next = level.get(value) as Level | undefined
    if (next === undefined) {
      next = new Map()
      level.set(value, next)
    }
    return next
  }
}

interface ExportedValue {
  value: number
  labels: Labels
  metricName?: string
}

interface Options {
  name: string
  help: string
  labelNames: readonly string[]
  registers: readonly Registry[]
}

/**
 * What prom-client's registry asks of a metric (`get`, `reset`, name, help, type, aggregator), which its Counter and
 * Histogram also answer: a scrape, the cluster's aggregation (AggregatorRegistry sums the workers' `get()` values) and
 * the text format see no difference.
 */
abstract class LabelledMetric<S> {
  readonly name: string
  readonly help: string
  readonly aggregator = 'sum' as const
  abstract readonly type: 'counter' | 'histogram'
  protected readonly index: SeriesIndex<S>

  constructor(options: Options, create: (labels: Labels) => S) {
    this.name = options.name
    this.help = options.help
    this.index = new SeriesIndex(options.labelNames, create)
    // The registry's type names prom-client's own classes; it reads only the members above.
    for (const registry of options.registers) registry.registerMetric(this as unknown as Metric)
  }

  protected abstract values(): ExportedValue[]

  async get() {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.values() }
  }

  reset(): void {
    this.index.clear()
  }
}

interface CounterSeries {
  readonly labels: Labels
  value: number
}

export class LabelledCounter extends LabelledMetric<CounterSeries> {
  readonly type = 'counter'

  constructor(options: Options) {
    super(options, (labels) => ({ labels, value: 0 }))
  }

  inc(first: string, second?: string, third?: string): void {
    this.index.find(first, second, third).value += 1
  }

  protected values(): ExportedValue[] {
    return this.index.series.map(({ labels, value }) => ({ labels, value }))
  }
}

interface HistogramSeries {
  readonly labels: Labels
  /** Observations per bucket, not cumulative: the last slot holds those above every bound. */
  readonly counts: Float64Array
  sum: number
}

export class LabelledHistogram extends LabelledMetric<HistogramSeries> {
  readonly type = 'histogram'
  readonly #upperBounds: readonly number[]

  constructor(options: Options & { buckets: readonly number[] }) {
    const upperBounds = [...options.buckets].sort((a, b) => a - b)
    super(options, (labels) => ({ labels, counts: new Float64Array(upperBounds.length + 1), sum: 0 }))
    this.#upperBounds = upperBounds
  }

  /** One observation of `value` for these label values; the value is last. */
  observe(value: number, first: string, second?: string, third?: string): void {
    if (!Number.isFinite(value)) throw new TypeError(`${this.name}: not a finite number: ${value}`)
    const series = this.index.find(first, second, third)
    const bounds = this.#upperBounds
    let bucket = 0
    while (bucket < bounds.length && value > bounds[bucket]!) bucket++
    series.counts[bucket]! += 1
    series.sum += value
  }

  /** prom-client's histogram lines: cumulative `_bucket` per bound and `+Inf`, then `_sum` and `_count`. */
  protected values(): ExportedValue[] {
    const bucketName = `${this.name}_bucket`
    const values: ExportedValue[] = []
    for (const { labels, counts, sum } of this.index.series) {
      let cumulative = 0
      this.#upperBounds.forEach((bound, bucket) => {
        cumulative += counts[bucket]!
        values.push({ labels: { ...labels, le: String(bound) }, value: cumulative, metricName: bucketName })
      })
      const count = cumulative + counts[this.#upperBounds.length]!
      values.push(
        { labels: { ...labels, le: '+Inf' }, value: count, metricName: bucketName },
        { labels, value: sum, metricName: `${this.name}_sum` },
        { labels, value: count, metricName: `${this.name}_count` },
      )
    }
    return values
  }
}
