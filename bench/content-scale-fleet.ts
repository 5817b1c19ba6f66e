/**
 * `npm run bench:content -- --fleet [N]`: a revalidation of the tag `guides` in a fleet, counted. N generated guides
 * (10,000 unless named) served by 3 instances of the built server, as `npm start` starts them, sharing one
 * redis-server (REDIS_URL) and behind one nginx (round robin), each a plain process on loopback ports of its own.
 * `CONTENT_FLEET_ASKED` guides (900) are first asked of every instance directly, so each keeps them; then one
 * `POST /api/revalidate {"tags":["guides"]}` through nginx marks them on every instance; then each of those guides'
 * page data is asked once through nginx, and after that once of every instance. Counted from each instance's
 * `page regenerated` lines: the regenerations, and those that ran the loader (`loaderRan`) rather than take the
 * version another instance made. One loader run per guide asked for in the fleet is the goal, not one per instance.
 */
import { rm } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { crawl, generateContent, revalidateToken, startCourier, waitForIndex, type Crawl } from './content-bench.ts'
import { startNginx, startRedis } from './fleet-services.ts'
import type { ServerProcess } from './processes.ts'
import { loadAverage } from './report.ts'

const progress = (message: string) => process.stderr.write(`bench:content: ${message}\n`)
const instances = 3
/**
 * Each instance keeps 1,000 page instances at most (config/server.ts staticPageCacheEntries): below that, every guide
 * asked for stays kept on all three, so every answer after the revalidation is a regeneration its log line counts
 * (a first load after an eviction logs nothing).
 */
const asked = Number(process.env.CONTENT_FLEET_ASKED ?? 900)

interface Instance {
  server: ServerProcess
  redisConnected: boolean
  regenerated: number
  loaderRuns: number
}

/** Counts an instance's `page regenerated` lines for the generated guides, as they come. */
function counter(instance: Omit<Instance, 'server'>) {
  return (line: string) => {
    if (!/page regenerated|redis connected/.test(line)) return
    const entry = JSON.parse(line) as { msg?: string; path?: string; loaderRan?: boolean }
    if (entry.msg === 'redis connected: sharing state') instance.redisConnected = true
    if (entry.msg !== 'page regenerated' || !entry.path?.startsWith('/guides/guide-')) return
    instance.regenerated++
    if (entry.loaderRan) instance.loaderRuns++
  }
}

async function startFleet(content: string, redisUrl: string): Promise<Instance[]> {
  const fleet: Instance[] = []
  for (let index = 0; index < instances; index++) {
    const counts = { redisConnected: false, regenerated: 0, loaderRuns: 0 }
    const { server, spawnedAt } = await startCourier(content, {
      name: `courier-${index + 1}`,
      // Info level: the regenerations are counted from their lines.
      env: { REDIS_URL: redisUrl, LOG_LEVEL: 'info' },
      onLine: counter(counts),
    })
    fleet.push(Object.assign(counts, { server }))
    await waitForIndex(server.origin, spawnedAt)
  }
  const deadline = Date.now() + 30_000
  while (!fleet.every((instance) => instance.redisConnected)) {
    if (Date.now() > deadline) throw new Error('the instances did not all log `redis connected`')
    await sleep(50)
  }
  return fleet
}

const guideData = (origin: string, deploymentId: string) => (index: number) =>
  `${origin}/_next/data/${deploymentId}/guides/guide-${index}.json`

/** Every asked guide's page data of every instance directly, one instance after the other. */
async function askEveryInstance(fleet: Instance[], deploymentId: string): Promise<number> {
  let failed = 0
  for (const { server } of fleet) {
    failed += (await crawl(guideData(server.origin, deploymentId), asked, { 'x-deployment-id': deploymentId })).failed
  }
  return failed
}

/** The counts so far, once the lines of the last answers have come. */
async function tally(fleet: Instance[]) {
  await sleep(1_000)
  return {
    regenerated: fleet.map((instance) => instance.regenerated),
    loaderRuns: fleet.reduce((sum, instance) => sum + instance.loaderRuns, 0),
  }
}

async function revalidateGuides(origin: string) {
  const response = await fetch(`${origin}/api/revalidate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${revalidateToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tags: ['guides'] }),
  })
  const answer = (await response.json()) as { instances?: number; regenerations?: { marked: number } }
  return { status: response.status, told: answer.instances, marked: answer.regenerations?.marked }
}

export async function fleetRegenerations(count: number, deploymentId: string): Promise<void> {
  const content = await generateContent(count)
  const redis = await startRedis()
  try {
    const fleet = await startFleet(content, redis.url)
    const nginx = await startNginx(fleet.map(({ server }) => server.port))
    progress(`${instances} instances, redis-server and nginx over ${count} guides; ${asked} guides asked`)
    const warmFailed = await askEveryInstance(fleet, deploymentId)
    const before = await tally(fleet)
    const revalidated = await revalidateGuides(nginx.origin)
    const throughNginx: Crawl = await crawl(guideData(nginx.origin, deploymentId), asked, {
      'x-deployment-id': deploymentId,
    })
    const once = await tally(fleet)
    const everyFailed = await askEveryInstance(fleet, deploymentId)
    const every = await tally(fleet)
    const since = (now: { regenerated: number[]; loaderRuns: number }) =>
      `regenerations ${now.regenerated.map((n, i) => n - before.regenerated[i]!).join(' + ')}, ` +
      `loader runs ${now.loaderRuns - before.loaderRuns}`
    console.log(
      [
        `${count} guides, ${instances} instances with Redis behind nginx (load average ${loadAverage().join(', ')})`,
        `  ${asked} guides asked of every instance first: ${warmFailed} failed`,
        `  {"tags":["guides"]} through nginx: ${revalidated.status}, ${revalidated.told} instances told, ` +
          `${revalidated.marked} marked on the instance that took it`,
        `  each guide once through nginx (${throughNginx.totalS.toFixed(1)} s, ${throughNginx.failed} failed): ${since(once)}`,
        `  then each guide of every instance (${everyFailed} failed): ${since(every)} (expected ${asked} loader runs)`,
      ].join('\n'),
    )
    await nginx.stop()
    await Promise.all(fleet.map(({ server }) => server.stop()))
  } finally {
    await redis.stop()
    await rm(content, { recursive: true, force: true })
  }
}
