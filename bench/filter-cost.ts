/**
 * The request filter's cost, measured in one process so both sides share every condition: a bare Fastify route with
 * the filter and without it, in many short alternating rounds through inject, each timed in CPU time of this process
 * (what other processes do changes wall time far more), the median round of each side compared; and Courier's whole
 * page for scale. Load runs on a shared machine differ by more than the filter costs; this A/B much less. Prints one
 * JSON line (FilterCostSample) on stdout.
 *
 * Run by `npm run bench:filter` (`node bench/filter-cost.ts` with NODE_ENV=production in the environment).
 */
import Fastify, { type FastifyInstance } from 'fastify'
import { pino } from 'pino'
import { loadConfig, type Config } from '../config/env.ts'
import deploymentId from '../plugins/deployment-id.ts'
import errors from '../plugins/errors.ts'
import requestFilter from '../plugins/request-filter.ts'
import { buildApp } from '../src/app.ts'

export interface FilterCostSample {
  path: string
  rounds: number
  requestsPerRound: number
  /** Median over rounds of the mean CPU time (user + system) per request of Courier's page, in microseconds. */
  pageUs: number
  /**
   * The filter alone: CPU per request it adds to a bare Fastify route answering a constant, in microseconds, and
   * that as a share of the page's cost without it: the filter's price without the page's noise.
   */
  hookUs: number
  hookSharePercent: number
}

const path = '/'
const rounds = 41
const requestsPerRound = 60

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

/** Mean CPU time per request of one round of `url` on `app`, in microseconds. */
async function timeRound(app: FastifyInstance, url: string): Promise<number> {
  const started = process.cpuUsage()
  for (let index = 0; index < requestsPerRound; index++) {
    const response = await app.inject(url)
    if (response.statusCode !== 200) throw new Error(`${url} answered ${response.statusCode}`)
  }
  const used = process.cpuUsage(started)
  return (used.user + used.system) / requestsPerRound
}

/** Median of the mean CPU time per request over rounds of `url` on `app`, after a warm-up. */
async function measure(app: FastifyInstance, url: string): Promise<number> {
  // Warm-up: JIT, the page's lazy chunk, React's caches.
  for (let round = 0; round < 5; round++) await timeRound(app, url)
  const samples: number[] = []
  for (let round = 0; round < rounds; round++) samples.push(await timeRound(app, url))
  return median(samples)
}

/** Medians of the mean CPU time per request of each side, over alternating rounds after a warm-up. */
async function compare(apps: Record<'filtered' | 'unfiltered', FastifyInstance>, url: string) {
  for (let round = 0; round < 5; round++) {
    await timeRound(apps.filtered, url)
    await timeRound(apps.unfiltered, url)
  }
  const samples = { filtered: [] as number[], unfiltered: [] as number[] }
  for (let round = 0; round < rounds; round++) {
    // Alternate who goes first, so a slow spell of the machine does not always fall on the same side.
    const order = round % 2 === 0 ? (['filtered', 'unfiltered'] as const) : (['unfiltered', 'filtered'] as const)
    for (const side of order) samples[side].push(await timeRound(apps[side], url))
  }
  return { filtered: median(samples.filtered), unfiltered: median(samples.unfiltered) }
}

/** A bare Fastify with one page-like route answering a constant, with or without the request filter. */
async function bareRoute(config: Config, withFilter: boolean): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  if (withFilter) {
    // The filter reads the build's deployment id and answers through the error table: both come along.
    await app.register(deploymentId, { distDir: config.distDir, dev: false, expected: undefined })
    await app.register(errors)
    await app.register(requestFilter, { hsts: false, pagePatterns: ['/guides/:slug'] })
  }
  app.get('/guides/:slug', async function answerConstant() {
    return 'ok'
  })
  await app.ready()
  return app
}

async function main(): Promise<void> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' })
  const app = await buildApp(config, { logger: pino({ level: 'silent' }) })
  const pageUs = await measure(app, path)
  await app.close()
  const bare = { filtered: await bareRoute(config, true), unfiltered: await bareRoute(config, false) }
  const hook = await compare(bare, '/guides/streaming-ssr')
  await Promise.all([bare.filtered.close(), bare.unfiltered.close()])
  const hookUs = hook.filtered - hook.unfiltered
  const sample: FilterCostSample = {
    path,
    rounds,
    requestsPerRound,
    pageUs: Number(pageUs.toFixed(1)),
    hookUs: Number(hookUs.toFixed(1)),
    hookSharePercent: Number(((hookUs / (pageUs - hookUs)) * 100).toFixed(2)),
  }
  process.stdout.write(JSON.stringify(sample) + '\n')
}

main().catch((error: unknown) => {
  process.stderr.write(`filter-cost: ${(error as Error)?.stack ?? String(error)}\n`)
  process.exit(1)
})
