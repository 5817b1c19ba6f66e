/**
 * `npm run bench:revalidation`: how long an on-demand revalidation takes to reach every instance, Courier against its
 * Next.js peer (docs/benchmarks.md "Revalidation across instances"). Each server runs as two instances on loopback
 * ports of their own, sharing one copy of CONTENT_DIR, behind one nginx of the bench's own (round robin); Courier's two
 * share one redis-server too (REDIS_URL: revalidations go through pub/sub). Under a light steady load through nginx,
 * each round edits one guide's Markdown (a unique marker sentence), calls POST /api/revalidate once through nginx with
 * the guide's path, and polls every instance directly, every 10 ms, for the guide's document and page data until both
 * carry the marker. Reported per server: the time from the call's start until the last instance serves the new
 * version, how long the instances disagreed, the loader runs per revalidation (counted from each instance's log lines),
 * and every 5xx or wrong answer the load saw. Raw figures in bench/results/revalidation.json, the block of
 * docs/benchmarks.md rewritten from them. Everything it starts (servers, redis-server, nginx, the load) ends with it.
 */
import { randomBytes } from 'node:crypto'
import { cp, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises'
import os, { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { revalidation as revalidationRoute } from '../config/content.ts'
import { loadConfig } from '../config/env.ts'
import { readStartCommand } from '../src/build/start-command.ts'
import { loadSite } from '../src/pages/site.ts'
import { readDeploymentId, serverEntryFile } from './build-output.ts'
import { benchmarksDoc, benchRoot, processLimits, projectRoot } from './config.ts'
import { runBench } from './lifecycle.ts'
import { startNginx, startRedis } from './fleet-services.ts'
import { buildPeer, installPeer, peerBuildId, peerServerSpec, peerVersion, writePeerSite } from './peer-next.ts'
import { ensureBuild, startServer, type ServerProcess, type ServerSpec } from './processes.ts'
import { revalidationBlockMarkers, rewriteBlock } from './readme-block.ts'
import { loadAverage } from './report.ts'
import { courierIdentity, firstGuidePath, nextIdentity, type ServerIdentity } from './targets.ts'

const progress = (message: string) => process.stderr.write(`bench:revalidation: ${message}\n`)

function wholeNumber(name: string, fallback: number, max: number): number {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw new Error(`${name} must be a whole number from 1 to ${max}, got ${JSON.stringify(raw)}`)
  return value
}

/** The shape of the run, with the reason for each figure. */
const settings = Object.freeze({
  /** Revalidations measured on Courier (REVALIDATION_ROUNDS): enough for a p50 and a first look at the tail. */
  courierRounds: wholeNumber('REVALIDATION_ROUNDS', 20, 200),
  /**
   * On Next (REVALIDATION_NEXT_ROUNDS): `res.revalidate` refreshes the instance that took the call only, the other
   * catches up when its copy is older than `revalidate` (60 s) and a request comes, so a round lasts up to a minute.
   */
  nextRounds: wholeNumber('REVALIDATION_NEXT_ROUNDS', 3, 20),
  /** A round gives up after this: Courier answers within a second here; 60 s of Next's revalidate plus a margin. */
  courierRoundCapMs: 15_000,
  nextRoundCapMs: 75_000,
  /** Between two polls of one instance (after the previous answer). */
  pollIntervalMs: 10,
  /** One poll gives up after this (counted as a failed poll, not a wrong answer of the load). */
  pollTimeoutMs: 5_000,
  /** After every instance serves the new version and before the next edit: late loader runs still count for the round. */
  settleMs: 1_000,
  /** Round starts at least this far apart: one call per 2 s stays under Courier's limit of the route (30 a minute per
   * client, config/content.ts), whatever the number of rounds. */
  minRoundIntervalMs: revalidationRoute.windowMs / revalidationRoute.maxPerWindow,
  /** The light steady load through nginx, the whole time the rounds run: requests per second over all connections. */
  loadRatePerS: 50,
  /** Requests of the load waiting for their answer at most: beyond it a tick is skipped (and counted), not queued. */
  loadMaxInFlight: 16,
  /** A load request without its whole answer by then counts as failed. */
  loadTimeoutMs: 10_000,
  /** Load before the first round: both instances keep every loaded page. */
  warmUpS: 3,
  /** Instances per server, behind one nginx. */
  instances: 2,
})

const token = `bench-${randomBytes(16).toString('hex')}`

/** What the load saw: every response judged, 5xx apart. */
interface LoadTally {
  /** Answers received and judged. */
  requests: number
  serverErrors: number
  /** Not a 5xx, but not the page or page data asked for (status, content type, body). */
  wrong: number
  /** No answer: connection error or time-out. */
  failed: number
  /** Ticks skipped because the in-flight limit was reached (the servers fell behind the rate). */
  skipped: number
  wrongSamples: string[]
  /** The edited guide's document and page data through nginx: when each was sent (performance.now) and its time. */
  guideLatencies: Array<{ at: number; ms: number }>
}

interface InstanceRound {
  name: string
  /** Courier: whether this instance took the call (its `revalidation told` line); Next logs nothing of the kind. */
  tookCall: boolean | null
  /** From the call's start until its document and page data both carried the marker (null: not within the cap). */
  newAfterMs: number | null
  /** Polls that answered the old version after a new one had been seen (an instance going back). */
  wentBack: number
  /** Polls whose document or page data was not a 200 of the right kind (HTML, JSON) or got no answer. */
  failedPolls: number
  loaderRuns: number
}

interface Round {
  round: number
  marker: string
  callStatus: number
  callMs: number
  /** Courier's answer says how many instances were told (PUBLISH's count); Next's says nothing of the kind. */
  instancesTold: number | null
  /** From the call's start until the last instance served the new version (null: some instance not within the cap). */
  consistentAfterMs: number | null
  /** From the first instance serving the new version until the last did (null: not within the cap). */
  disagreedMs: number | null
  loaderRuns: number
  instances: InstanceRound[]
  /** The regeneration window (performance.now): from the call's start until the last instance was new. */
  window: { from: number; to: number }
}

interface ServerRun {
  server: ServerIdentity['server']
  label: string
  setup: string
  roundCapMs: number
  rounds: Round[]
  load: LoadTally & { durationS: number }
  loadAverage: { start: number[]; end: number[] }
}

/** What an instance's log lines said (counted from its first line, start-up included). */
interface InstanceLog {
  loaderRunsAt: number[]
  /** Courier: the times a call was taken by this instance (`revalidation told`). */
  callsTakenAt: number[]
  redisConnected: boolean
}

/** An instance: its direct address and what its log lines said. */
interface Instance extends InstanceLog {
  server: ServerProcess
}

const percentile = (values: number[], share: number): number | null => {
  if (!values.length) return null
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!
}
const round1 = (value: number) => Math.round(value * 10) / 10

/** A copy of CONTENT_DIR for one server's instances: the bench edits it, never the repository's. */
async function contentCopy(label: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `courier-bench-revalidation-${label}-content-`))
  await cp(loadConfig({}).contentDir, dir, { recursive: true })
  return dir
}

/** The guide with one marker sentence at its end, written whole (a rename: a loader never reads half a file). */
async function writeGuide(file: string, original: string, marker: string): Promise<void> {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`)
  await writeFile(temporary, `${original.trimEnd()}\n\n${marker}\n`)
  await rename(temporary, file)
}

/**
 * The light load through nginx: the edited guide, its page data and the other content pages in turn, at a fixed rate
 * (one request every 1000 / rate ms, a bounded number in flight), every answer judged against the request that asked
 * for it (one fetch each: no answer can be credited to another request). Ends at `durationS` or on `stop()`.
 */
function startLoad(
  origin: string,
  guidePath: string,
  dataPath: string,
  dataHeaders: Record<string, string>,
  durationS: number,
) {
  const tally: LoadTally = {
    requests: 0,
    serverErrors: 0,
    wrong: 0,
    failed: 0,
    skipped: 0,
    wrongSamples: [],
    guideLatencies: [],
  }
  const isPage = (status: number, type: string, body: string) =>
    status === 200 && type.startsWith('text/html') && body.trimEnd().endsWith('</html>')
  const isData = (status: number, type: string, body: string) =>
    status === 200 && type.startsWith('application/json') && body.startsWith('{') && body.includes('"pageProps"')
  const targets = [
    { path: guidePath, headers: {}, good: isPage },
    { path: dataPath, headers: dataHeaders, good: isData },
    { path: '/', headers: {}, good: isPage },
    { path: '/guides', headers: {}, good: isPage },
    { path: '/faq', headers: {}, good: isPage },
  ]
  async function fire(target: (typeof targets)[number]): Promise<void> {
    let status = 0
    let type = ''
    let body = ''
    const sentAt = performance.now()
    try {
      // identity: as a plain client asks, and no decompression cost in the bench's own process.
      const response = await fetch(origin + target.path, {
        headers: { 'accept-encoding': 'identity', ...target.headers },
        signal: AbortSignal.timeout(settings.loadTimeoutMs),
      })
      status = response.status
      type = response.headers.get('content-type') ?? ''
      body = await response.text()
    } catch (error) {
      tally.failed += 1
      if (tally.wrongSamples.length < 10) tally.wrongSamples.push(`${target.path}: ${(error as Error).message}`)
      return
    }
    tally.requests += 1
    if (target.path === guidePath || target.path === dataPath)
      tally.guideLatencies.push({ at: sentAt, ms: performance.now() - sentAt })
    if (status >= 500) tally.serverErrors += 1
    else if (!target.good(status, type, body)) tally.wrong += 1
    else return
    if (tally.wrongSamples.length < 10)
      tally.wrongSamples.push(`${target.path}: ${status} ${type} ${body.slice(0, 100)}`)
  }
  let stopped = false
  const running = (async () => {
    const inFlight = new Set<Promise<void>>()
    const intervalMs = 1000 / settings.loadRatePerS
    const endAt = performance.now() + durationS * 1000
    let due = performance.now()
    for (let index = 0; !stopped && performance.now() < endAt; index += 1) {
      if (inFlight.size < settings.loadMaxInFlight) {
        const one: Promise<void> = fire(targets[index % targets.length]!).finally(() => inFlight.delete(one))
        inFlight.add(one)
      } else {
        tally.skipped += 1
      }
      due += intervalMs
      await sleep(Math.max(0, due - performance.now()))
    }
    await Promise.all(inFlight)
  })()
  return {
    tally,
    async stop() {
      stopped = true
      await running
    },
  }
}

/** One GET, its status and whole body; a failure is a status of 0. */
async function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string; body: string }> {
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(settings.pollTimeoutMs) })
    return { status: response.status, type: response.headers.get('content-type') ?? '', body: await response.text() }
  } catch {
    return { status: 0, type: '', body: '' }
  }
}

/**
 * Polls one instance until its document and page data both carry the marker (or the round's deadline): the moment
 * it first did, and whether it went back to the old version afterwards while the others were still polled.
 */
async function pollInstance(
  instance: Instance,
  marker: string,
  paths: { guide: string; data: string; dataHeaders: Record<string, string> },
  startedAt: number,
  round: { deadline: number; newAfterMs: Array<number | null>; index: number },
): Promise<{ newAfterMs: number | null; wentBack: number; failedPolls: number }> {
  let newAfterMs: number | null = null
  let wentBack = 0
  let failedPolls = 0
  while (performance.now() < round.deadline) {
    const [page, data] = await Promise.all([
      get(instance.server.origin + paths.guide),
      get(instance.server.origin + paths.data, paths.dataHeaders),
    ])
    const answeredAt = performance.now()
    // The document as HTML and the page data as JSON: each the answer to its own request.
    const rightKinds = page.type.startsWith('text/html') && data.type.startsWith('application/json')
    if (page.status !== 200 || data.status !== 200 || !rightKinds) failedPolls += 1
    const fresh = rightKinds && page.body.includes(marker) && data.body.includes(marker)
    if (fresh && newAfterMs === null) {
      newAfterMs = answeredAt - startedAt
      round.newAfterMs[round.index] = newAfterMs
    }
    if (!fresh && newAfterMs !== null) wentBack += 1
    // Every instance new: the round is over for all of them.
    if (round.newAfterMs.every((one) => one !== null)) break
    await sleep(settings.pollIntervalMs)
  }
  return { newAfterMs, wentBack, failedPolls }
}

async function measureRounds(
  { server, label }: ServerIdentity,
  instances: Instance[],
  origin: string,
  guide: { path: string; file: string; dataPath: string; dataHeaders: Record<string, string> },
  rounds: number,
  roundCapMs: number,
): Promise<Round[]> {
  const original = await readFile(guide.file, 'utf8')
  const results: Round[] = []
  try {
    for (let round = 1; round <= rounds; round += 1) {
      const marker = `Revalidation marker ${label.toLowerCase()} ${round} ${randomBytes(6).toString('hex')}.`
      await writeGuide(guide.file, original, marker)
      const startedAt = performance.now()
      const deadline = startedAt + roundCapMs
      // Each instance's first new answer, as it comes: every poll loop stops once all have one.
      const newAfterMs: Array<number | null> = instances.map(() => null)
      const polls = Promise.all(
        instances.map((instance, index) =>
          pollInstance(
            instance,
            marker,
            { guide: guide.path, data: guide.dataPath, dataHeaders: guide.dataHeaders },
            startedAt,
            {
              deadline,
              newAfterMs,
              index,
            },
          ),
        ),
      )
      const call = await fetch(origin + revalidationRoute.path, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ paths: [guide.path] }),
        signal: AbortSignal.timeout(roundCapMs),
      })
      const callMs = performance.now() - startedAt
      const answer = (await call.json().catch(() => ({}))) as { instances?: number }
      if (call.status !== 200)
        progress(`warning: ${label} round ${round}: the call answered ${call.status} ${JSON.stringify(answer)}`)
      const polled = await polls
      await sleep(Math.max(settings.settleMs, startedAt + settings.minRoundIntervalMs - performance.now()))
      const windowEnd = performance.now()
      const inWindow = (times: number[]) => times.filter((time) => time >= startedAt && time < windowEnd).length
      const perInstance: InstanceRound[] = instances.map((instance, index) => ({
        name: instance.server.name,
        tookCall: server === 'courier' ? inWindow(instance.callsTakenAt) > 0 : null,
        newAfterMs: polled[index]!.newAfterMs === null ? null : round1(polled[index]!.newAfterMs!),
        wentBack: polled[index]!.wentBack,
        failedPolls: polled[index]!.failedPolls,
        loaderRuns: inWindow(instance.loaderRunsAt),
      }))
      const times = perInstance.map((one) => one.newAfterMs)
      const allNew = times.every((time): time is number => time !== null)
      const result: Round = {
        round,
        marker,
        callStatus: call.status,
        callMs: round1(callMs),
        instancesTold: typeof answer.instances === 'number' ? answer.instances : null,
        consistentAfterMs: allNew ? Math.max(...times) : null,
        disagreedMs: allNew ? round1(Math.max(...times) - Math.min(...times)) : null,
        loaderRuns: perInstance.reduce((sum, one) => sum + one.loaderRuns, 0),
        instances: perInstance,
        window: { from: startedAt, to: startedAt + (allNew ? Math.max(...times) : roundCapMs) },
      }
      results.push(result)
      progress(
        `${label} round ${round}/${rounds}: call ${result.callStatus} in ${result.callMs} ms; every instance new after ` +
          `${result.consistentAfterMs ?? `more than ${roundCapMs}`} ms (${perInstance.map((one) => `${one.name} ${one.newAfterMs ?? '—'}`).join(', ')}); ` +
          `${result.loaderRuns} loader runs`,
      )
    }
  } finally {
    await writeFile(guide.file, original)
  }
  return results
}

/** Counts the edited guide's loader runs from an instance's stdout, as they come. */
function lineCounter(target: InstanceLog, guidePath: string, server: 'courier' | 'next') {
  return (line: string) => {
    // Cheap test first: Courier logs every request at info.
    const interesting = server === 'courier' ? /page regenerated|revalidation told|redis connected/ : /peer loader run/
    if (!interesting.test(line)) return
    let entry: { msg?: string; path?: string; loaderRan?: boolean }
    try {
      entry = JSON.parse(line) as { msg?: string; path?: string; loaderRan?: boolean }
    } catch {
      return
    }
    const now = performance.now()
    if (entry.msg === 'redis connected: sharing state') target.redisConnected = true
    if (entry.msg === 'revalidation told') target.callsTakenAt.push(now)
    // Courier: a regeneration whose version another instance made ran no loader here (`loaderRan: false`).
    const loaderRan = entry.msg === 'peer loader run' || (entry.msg === 'page regenerated' && entry.loaderRan !== false)
    if (loaderRan && entry.path === guidePath) target.loaderRunsAt.push(now)
  }
}

async function startInstances(
  specFor: (index: number) => ServerSpec,
  guidePath: string,
  server: 'courier' | 'next',
): Promise<Instance[]> {
  const instances: Instance[] = []
  for (let index = 0; index < settings.instances; index += 1) {
    const log: InstanceLog = { loaderRunsAt: [], callsTakenAt: [], redisConnected: false }
    const started = await startServer({ ...specFor(index), onLine: lineCounter(log, guidePath, server) })
    instances.push(Object.assign(log, { server: started }))
  }
  return instances
}

/** Asks every instance directly for the guide and its data, so each keeps them before the first round. */
async function warmInstances(
  instances: Instance[],
  guidePath: string,
  dataPath: string,
  dataHeaders: Record<string, string>,
) {
  for (const instance of instances) {
    for (const [url, headers] of [
      [instance.server.origin + guidePath, {}],
      [instance.server.origin + dataPath, dataHeaders],
    ] as const) {
      const answer = await get(url, headers)
      if (answer.status !== 200) throw new Error(`${instance.server.name} answers ${url} with ${answer.status}`)
    }
  }
}

async function runServer(options: {
  identity: ServerIdentity<'courier' | 'next'>
  setup: string
  rounds: number
  roundCapMs: number
  guidePath: string
  specFor: (index: number, contentDir: string) => ServerSpec
  beforeRounds?: (instances: Instance[]) => Promise<void>
}): Promise<ServerRun> {
  const { identity, guidePath } = options
  const contentDir = await contentCopy(identity.server)
  const stops: Array<() => Promise<void>> = []
  try {
    const instances = await startInstances((index) => options.specFor(index, contentDir), guidePath, identity.server)
    stops.push(...instances.map((instance) => () => instance.server.stop()))
    const nginx = await startNginx(instances.map((instance) => instance.server.port))
    stops.unshift(nginx.stop)
    const dataPath = `/_next/data/${identity.deploymentId}${guidePath}.json`
    await warmInstances(instances, guidePath, dataPath, identity.dataHeaders)
    await options.beforeRounds?.(instances)
    const loadStart = loadAverage()
    const durationS =
      settings.warmUpS +
      Math.ceil((options.rounds * (options.roundCapMs + settings.settleMs + settings.minRoundIntervalMs)) / 1000)
    const load = startLoad(nginx.origin, guidePath, dataPath, identity.dataHeaders, durationS)
    const loadStartedAt = performance.now()
    try {
      await sleep(settings.warmUpS * 1000)
      const file = path.join(contentDir, 'guides', `${guidePath.split('/').pop()}.md`)
      const rounds = await measureRounds(
        identity,
        instances,
        nginx.origin,
        { path: guidePath, file, dataPath, dataHeaders: identity.dataHeaders },
        options.rounds,
        options.roundCapMs,
      )
      await load.stop()
      return {
        server: identity.server,
        label: identity.label,
        setup: options.setup,
        roundCapMs: options.roundCapMs,
        rounds,
        load: { ...load.tally, durationS: round1((performance.now() - loadStartedAt) / 1000) },
        loadAverage: { start: loadStart, end: loadAverage() },
      }
    } finally {
      await load.stop()
    }
  } finally {
    for (const stop of stops) await stop()
    await rm(contentDir, { recursive: true, force: true })
  }
}

/** What the block and the JSON say of one server's rounds. */
function summarize(run: ServerRun) {
  const done = run.rounds.filter((round) => round.consistentAfterMs !== null)
  const consistent = done.map((round) => round.consistentAfterMs!)
  const disagreed = done.map((round) => round.disagreedMs!)
  const runs = run.rounds.map((round) => round.loaderRuns)
  const told = run.rounds.flatMap((round) => (round.instancesTold === null ? [] : [round.instancesTold]))
  return {
    rounds: run.rounds.length,
    timedOut: run.rounds.length - done.length,
    consistentMs: {
      p50: percentile(consistent, 0.5),
      p99: percentile(consistent, 0.99),
      max: percentile(consistent, 1),
    },
    disagreedMs: { p50: percentile(disagreed, 0.5), max: percentile(disagreed, 1) },
    firstNewMs: percentile(
      done.map((round) => Math.min(...round.instances.map((one) => one.newAfterMs!))),
      0.5,
    ),
    roundsDisagreeing: disagreed.filter((ms) => ms > settings.pollIntervalMs * 2).length,
    callMs: percentile(
      run.rounds.map((round) => round.callMs),
      0.5,
    ),
    loaderRuns: {
      min: runs.length ? Math.min(...runs) : null,
      mean: runs.length ? round1(runs.reduce((sum, one) => sum + one, 0) / runs.length) : null,
      max: runs.length ? Math.max(...runs) : null,
    },
    instancesTold: told.length ? `${Math.min(...told)}-${Math.max(...told)}` : '— (not in its answer)',
    guideP99Ms: (() => {
      const during = (at: number) => run.rounds.some((round) => at >= round.window.from && at < round.window.to)
      const samples = run.load.guideLatencies
      return {
        steady: percentile(
          samples.filter((one) => !during(one.at)).map((one) => one.ms),
          0.99,
        ),
        regenerating: percentile(
          samples.filter((one) => during(one.at)).map((one) => one.ms),
          0.99,
        ),
        regeneratingCount: samples.filter((one) => during(one.at)).length,
      }
    })(),
    wentBack: run.rounds.reduce(
      (sum, round) => sum + round.instances.reduce((inner, one) => inner + one.wentBack, 0),
      0,
    ),
    failedPolls: run.rounds.reduce(
      (sum, round) => sum + round.instances.reduce((inner, one) => inner + one.failedPolls, 0),
      0,
    ),
  }
}

function formatBlock(report: { date: string; node: string; next: string; cpus: string; runs: ServerRun[] }): string {
  const [courier, next] = report.runs.map((run) => ({ run, summary: summarize(run) })) as [
    { run: ServerRun; summary: ReturnType<typeof summarize> },
    { run: ServerRun; summary: ReturnType<typeof summarize> },
  ]
  const ms = (value: number | null) => (value === null ? '—' : String(Math.round(value)))
  const row = (name: string, pick: (one: { run: ServerRun; summary: ReturnType<typeof summarize> }) => string) =>
    `| ${name} | ${pick(courier)} | ${pick(next)} |`
  const loadAvg = ({ run }: { run: ServerRun }) =>
    `${run.loadAverage.start.join(', ')} → ${run.loadAverage.end.join(', ')}`
  return [
    `Last run: ${report.date}, ${report.cpus}, node ${report.node}, Next.js ${report.next}; ${settings.instances} instances each behind one nginx (round robin), ` +
      `${settings.loadRatePerS} req/s of load through it the whole time, polls of each instance every ${settings.pollIntervalMs} ms.`,
    '',
    '| | Courier | Next |',
    '| --- | ---: | ---: |',
    row('setup', (one) => one.run.setup),
    row('rounds (a round gives up after)', (one) => `${one.summary.rounds} (${one.run.roundCapMs / 1000} s)`),
    row('time to consistent p50 ms', (one) => ms(one.summary.consistentMs.p50)),
    row('time to consistent p99 ms', (one) => ms(one.summary.consistentMs.p99)),
    row('time to consistent max ms', (one) => ms(one.summary.consistentMs.max)),
    row('rounds not consistent within the cap', (one) => String(one.summary.timedOut)),
    row('instances disagreed: rounds (over 20 ms)', (one) => String(one.summary.roundsDisagreeing)),
    row(
      'instances disagreed: p50 / max ms',
      (one) => `${ms(one.summary.disagreedMs.p50)} / ${ms(one.summary.disagreedMs.max)}`,
    ),
    row('call answered p50 ms', (one) => ms(one.summary.callMs)),
    row('first instance new p50 ms', (one) => ms(one.summary.firstNewMs)),
    row('instances the 200 says were told', (one) => one.summary.instancesTold),
    row(
      'loader runs per revalidation min / mean / max',
      (one) => `${one.summary.loaderRuns.min} / ${one.summary.loaderRuns.mean} / ${one.summary.loaderRuns.max}`,
    ),
    row('an instance went back to the old version (polls)', (one) => String(one.summary.wentBack)),
    row('polls not answered 200 with HTML and JSON', (one) => String(one.summary.failedPolls)),
    row(
      'the guide through nginx: p99 ms steady / while it regenerates (requests)',
      (one) =>
        `${ms(one.summary.guideP99Ms.steady)} / ${ms(one.summary.guideP99Ms.regenerating)} (${one.summary.guideP99Ms.regeneratingCount})`,
    ),
    row(
      'load: requests / 5xx / wrong answers',
      (one) => `${one.run.load.requests} / ${one.run.load.serverErrors} / ${one.run.load.wrong}`,
    ),
    row('load: no answer / ticks skipped', (one) => `${one.run.load.failed} / ${one.run.load.skipped}`),
    row('load average (1, 5, 15 min) at start → end', loadAvg),
    '',
    'Time to consistent: from the start of the call through nginx until the last instance, asked directly, served the guide ' +
      "and its page data with the new sentence. Loader runs: the guide's loader runs the instances logged from the call " +
      `until the next round's edit (at least ${settings.settleMs / 1000} s after the last instance was new). Next's \`res.revalidate\` regenerates the instance that took the call; ` +
      'the other serves its copy until it is older than `revalidate` (60 s) and a request comes, hence fewer, longer rounds: ' +
      'its time to consistent is however long that copy still had to live when the call came, from almost nothing to 60 s ' +
      'plus a regeneration. Ticks skipped: load requests not sent because ' +
      `${settings.loadMaxInFlight} were still waiting for an answer (the instances fell behind ${settings.loadRatePerS} req/s).`,
  ].join('\n')
}

async function main(): Promise<void> {
  const loadAtStart = loadAverage()
  progress(`load average at start: ${loadAtStart.join(', ')}`)
  await Promise.all([ensureBuild(), installPeer()])
  const { pages } = await loadSite(false)
  const deploymentId = await readDeploymentId()
  await writePeerSite(pages, deploymentId)
  await buildPeer()
  const buildId = await peerBuildId()
  const { path: guidePath } = await firstGuidePath(pages)
  const start = await readStartCommand(projectRoot)
  const baseEnv: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    COURIER_DEV: 'false',
    COURIER_TEST_ROUTES: 'false',
    REVALIDATE_TOKEN: token,
  }
  const runs: ServerRun[] = []

  progress(
    `Courier: ${settings.instances} instances, redis-server, nginx; ${settings.courierRounds} rounds on ${guidePath}`,
  )
  const redis = await startRedis()
  const imageCacheDir = await mkdtemp(path.join(tmpdir(), 'courier-bench-revalidation-images-'))
  try {
    runs.push(
      await runServer({
        identity: courierIdentity(deploymentId),
        setup: `${settings.instances} × \`npm start\`, REDIS_URL`,
        rounds: settings.courierRounds,
        roundCapMs: settings.courierRoundCapMs,
        guidePath,
        specFor: (index, contentDir) => ({
          name: `courier-${index + 1}`,
          // As `npm start` runs it: its variables, Node's flags and the compiled server. Info level: the bench counts
          // `page regenerated` lines.
          args: [...start.nodeArgs, path.relative(projectRoot, serverEntryFile)],
          env: {
            ...baseEnv,
            ...start.env,
            LOG_LEVEL: 'info',
            REDIS_URL: redis.url,
            CONTENT_DIR: contentDir,
            IMAGE_CACHE_DIR: imageCacheDir,
          },
          healthPath: '/api/health',
        }),
        beforeRounds: async (instances) => {
          const deadline = Date.now() + processLimits.startUpMs
          while (!instances.every((instance) => instance.redisConnected)) {
            if (Date.now() > deadline) throw new Error('the Courier instances did not all log `redis connected`')
            await sleep(50)
          }
        },
      }),
    )
  } finally {
    await redis.stop()
    await rm(imageCacheDir, { recursive: true, force: true })
  }

  progress(`Next: ${settings.instances} × next start, nginx; ${settings.nextRounds} rounds on ${guidePath}`)
  runs.push(
    await runServer({
      identity: nextIdentity(buildId),
      setup: `${settings.instances} × \`next start\`, one \`.next\``,
      rounds: settings.nextRounds,
      roundCapMs: settings.nextRoundCapMs,
      guidePath,
      specFor: (index, contentDir) => ({
        ...peerServerSpec({ ...baseEnv, CONTENT_DIR: contentDir }, '/robots.txt'),
        name: `next-${index + 1}`,
      }),
    }),
  )

  const cpus = os.cpus()
  const report = {
    date: new Date().toISOString().slice(0, 10),
    node: process.version,
    next: await peerVersion(),
    cpus: `${cpus.length} × ${cpus[0]?.model.trim().split(' ').slice(0, 2).join(' ') ?? 'unknown CPU'}`,
    runs,
  }
  const json = {
    ...report,
    // The latency samples are summarized (summaries): thousands of them would drown the rounds.
    runs: runs.map((run) => ({ ...run, load: { ...run.load, guideLatencies: run.load.guideLatencies.length } })),
    settings,
    guidePath,
    loadAverage: { start: loadAtStart, end: loadAverage() },
    summaries: Object.fromEntries(runs.map((run) => [run.server, summarize(run)])),
  }
  const resultsFile = path.join(benchRoot, 'results', 'revalidation.json')
  await writeFile(resultsFile, `${JSON.stringify(json, null, 2)}\n`)
  const block = formatBlock(report)
  await writeFile(benchmarksDoc, rewriteBlock(await readFile(benchmarksDoc, 'utf8'), block, revalidationBlockMarkers))
  process.stdout.write(`${block}\n`)
  progress(
    `wrote ${path.relative(projectRoot, resultsFile)} and the block of ${path.relative(projectRoot, benchmarksDoc)}`,
  )
}

await runBench(main, progress)
