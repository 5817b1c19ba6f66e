/**
 * Fresh content across a deployed fleet (docs/content.md "Across the fleet"): nginx with deploy/nginx/ in front of
 * three Courier processes (the compiled server, as `npm start` runs it) sharing one redis-server and one CONTENT_DIR.
 * For 30 s, requests for the guides' documents and page data go through nginx while, every 1.5 s, one guide's
 * Markdown file is edited and `POST /api/revalidate` is called through nginx: after each 200, every instance (asked
 * directly) serves the new document and page data, the loader ran once for the whole fleet, and no request of the
 * load is answered 5xx or wrong. Then a guide is added and another removed, and a tag revalidation brings the list of
 * guides and both pages along on every instance. The pages are the test build's (test/site/pages/), whatever pages
 * the site has. The time from the 200 to the last instance serving the change, and the
 * load's latency while pages regenerate, are printed (comments); `npm run bench:revalidation` measures them.
 */
import { cp, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import t from 'tap'
import { Agent, request } from 'undici'
import { revalidation } from '../../config/content.ts'
import { defaultDistDir } from '../../config/env.ts'
import { pageDataUrl } from '../../src/common/page-data.ts'
import { siteContent } from '../helpers/content.ts'
import { projectRoot, startServer, type ServerProcess } from '../reliability/server-process.ts'
import { startNginxInFront, startRedis, waitFor } from './processes.ts'
import { testGuidePath, testGuidesPath } from '../helpers/site-pages.ts'

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const token = 'fleet-content-token-0123456789abcdefgh'
const loadSeconds = 30
const roundEveryMs = 1_500
/** A round whose change has not reached every instance by then fails (the goal is 1 s; this bounds a hang). */
const consistencyBoundMs = 10_000

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

const redis = await startRedis(t)
const contentDir = await mkdtemp(path.join(tmpdir(), 'courier-fleet-content-'))
t.teardown(() => rm(contentDir, { recursive: true, force: true }))
await cp(siteContent.dir, contentDir, { recursive: true })
const distDir = path.join(projectRoot, defaultDistDir(true))
const { deploymentId } = JSON.parse(await readFile(path.join(distDir, 'deployment.json'), 'utf8')) as {
  deploymentId: string
}
const env = {
  COURIER_TEST_ROUTES: 'true',
  REDIS_URL: redis.url,
  CONTENT_DIR: contentDir,
  REVALIDATE_TOKEN: token,
  TRUST_PROXY: '127.0.0.1',
}
const instances: ServerProcess[] = []
for (let index = 0; index < 3; index += 1) instances.push(await startServer(t, { env, keepAccessLines: false }))
await waitFor('every instance connected to Redis', () =>
  instances.every((one) => one.logs().some((line) => /redis connected/.test(line.msg))),
)
const { origin } = await startNginxInFront(t, { distDir, deploymentId, servers: instances.map((one) => one.port) })

const guides = (await siteContent.guides()).slice(0, 4)
const edited = guides.map((guide) => testGuidePath(guide.slug))
const agent = new Agent({ connections: 16, keepAliveTimeout: 30_000 })
t.teardown(() => agent.close())

async function get(url: string): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now()
  const response = await request(url, { dispatcher: agent, headers: { 'accept-encoding': 'identity' } })
  const body = await response.body.text()
  return { status: response.statusCode, body, ms: performance.now() - started }
}

async function revalidate(body: { paths?: string[]; tags?: string[] }): Promise<{ status: number; instances: number }> {
  const response = await request(`${origin}${revalidation.path}`, {
    dispatcher: agent,
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const answer = (await response.body.json()) as { instances?: number }
  return { status: response.statusCode, instances: answer.instances ?? 0 }
}

/** Whether every instance, asked directly, serves `text` in the page's document and its page data. */
async function everyInstanceServes(pagePath: string, text: string): Promise<boolean> {
  const answers = await Promise.all(
    instances.flatMap((one) => [
      get(`${one.origin}${pagePath}`),
      get(`${one.origin}${pageDataUrl(deploymentId, pagePath)}`),
    ]),
  )
  return answers.every((answer) => answer.status === 200 && answer.body.includes(text))
}

const loaderRuns = (pagePath: string) =>
  instances.reduce(
    (sum, one) =>
      sum +
      one.logs().filter((line) => line.msg === 'page regenerated' && line.path === pagePath && line.loaderRan === true)
        .length,
    0,
  )

t.test(
  'content edited and revalidated every 1.5 s for 30 s under load through nginx: every instance follows, nothing fails',
  async (t) => {
    // Every instance keeps every edited guide before the first change.
    for (const one of instances)
      for (const pagePath of edited) t.equal((await get(`${one.origin}${pagePath}`)).status, 200, { diagnostic: false })

    const targets = edited.flatMap((pagePath) => [pagePath, pageDataUrl(deploymentId, pagePath)]).concat(testGuidesPath)
    const tally = {
      sent: 0,
      fiveHundreds: 0,
      wrong: [] as string[],
      steadyMs: [] as number[],
      regeneratingMs: [] as number[],
    }
    let regenerating = 0
    const endAt = performance.now() + loadSeconds * 1000
    const client = async (offset: number) => {
      for (let next = offset; performance.now() < endAt; next += 1) {
        const target = targets[next % targets.length]!
        const during = regenerating > 0
        tally.sent += 1
        const answer = await get(`${origin}${target}`).catch((error: unknown) => ({
          status: 0,
          body: String(error),
          ms: 0,
        }))
        if (answer.status >= 500) tally.fiveHundreds += 1
        const expected = target.endsWith('.json') ? '"pageProps"' : '</html>'
        if (answer.status !== 200 || !answer.body.includes(expected))
          tally.wrong.push(`${target}: ${answer.status} ${answer.body.slice(0, 120)}`)
        ;(during ? tally.regeneratingMs : tally.steadyMs).push(answer.ms)
      }
    }
    const load = Promise.all(Array.from({ length: 8 }, (_unused, index) => client(index)))

    const rounds: { pagePath: string; consistentMs: number; instances: number }[] = []
    for (let round = 1; performance.now() + roundEveryMs < endAt; round += 1) {
      const roundStarted = performance.now()
      const pagePath = edited[round % edited.length]!
      const file = path.join(contentDir, 'guides', `${pagePath.split('/').pop()}.md`)
      const marker = `Fleet revision ${round} of this guide.`
      await writeFile(
        file,
        `${(await readFile(file, 'utf8')).replace(/\n\nFleet revision \d+ of this guide\.\n$/, '\n')}\n${marker}\n`,
      )
      regenerating += 1
      const told = await revalidate({ paths: [pagePath] })
      const answeredAt = performance.now()
      t.equal(told.status, 200, `round ${round}: 200`, { diagnostic: false })
      const deadline = answeredAt + consistencyBoundMs
      while (!(await everyInstanceServes(pagePath, marker))) {
        if (performance.now() > deadline) break
        await sleep(10)
      }
      const consistentMs = performance.now() - answeredAt
      regenerating -= 1
      t.ok(consistentMs < consistencyBoundMs, `round ${round}: every instance serves the change`, { diagnostic: false })
      rounds.push({ pagePath, consistentMs, instances: told.instances })
      await sleep(Math.max(0, roundEveryMs - (performance.now() - roundStarted)))
    }
    await load

    t.ok(rounds.length >= 15, `${rounds.length} rounds`)
    // The log lines come through pipes: counted once the last has had time to arrive.
    const expectedRuns = Object.fromEntries(
      edited.map((pagePath) => [pagePath, rounds.filter((one) => one.pagePath === pagePath).length]),
    )
    await waitFor(
      'a loader run logged for every revalidation',
      () => edited.every((pagePath) => loaderRuns(pagePath) >= expectedRuns[pagePath]!),
      5_000,
    ).catch(() => undefined)
    await sleep(200)
    t.same(
      Object.fromEntries(edited.map((pagePath) => [pagePath, loaderRuns(pagePath)])),
      expectedRuns,
      'each revalidation of a page: its loader ran exactly once for the whole fleet',
    )
    t.ok(
      rounds.every((one) => one.instances === 3),
      'every call told the three instances',
    )
    t.equal(tally.fiveHundreds, 0, `no 5xx among ${tally.sent} requests`)
    t.same(tally.wrong.slice(0, 5), [], 'no wrong answer')
    const consistent = rounds.map((one) => one.consistentMs)
    t.comment(
      `${rounds.length} revalidations, ${tally.sent} requests through nginx: every instance new after the 200 in ` +
        `p50 ${percentile(consistent, 50).toFixed(1)} ms, p99 ${percentile(consistent, 99).toFixed(1)} ms, max ${Math.max(...consistent).toFixed(1)} ms; ` +
        `request p99 steady ${percentile(tally.steadyMs, 99).toFixed(1)} ms (${tally.steadyMs.length}), ` +
        `while regenerating ${percentile(tally.regeneratingMs, 99).toFixed(1)} ms (${tally.regeneratingMs.length})`,
    )
  },
)

t.test(
  'a guide added and another removed: a tag revalidation brings the list and both pages along on every instance',
  async (t) => {
    const added = path.join(contentDir, 'guides', 'fleet-added-guide.md')
    await writeFile(
      added,
      '---\ntitle: "Added across the fleet"\nsummary: "A guide that appeared without a deploy."\norder: 99\n---\n\n## Here\n\nIt is here.\n',
    )
    const removed = guides.at(-1)!
    await unlink(path.join(contentDir, 'guides', `${removed.slug}.md`))
    const told = await revalidate({ tags: ['guides'] })
    t.equal(told.status, 200)
    const deadline = performance.now() + consistencyBoundMs
    /** What is still wrong, instance by instance: empty once every instance has followed. */
    const lagging = async () => {
      const wrong: string[] = []
      for (const one of instances) {
        const list = await get(`${one.origin}${testGuidesPath}`)
        if (!list.body.includes('Added across the fleet')) wrong.push(`${one.port}: the list without the added guide`)
        if (list.body.includes(`href="${testGuidePath(removed.slug)}"`))
          wrong.push(`${one.port}: the list still links the removed guide`)
        const addedPage = await get(`${one.origin}${testGuidePath('fleet-added-guide')}`)
        if (addedPage.status !== 200) wrong.push(`${one.port}: the added guide ${addedPage.status}`)
        const removedPage = await get(`${one.origin}${testGuidePath(removed.slug)}`)
        if (removedPage.status !== 404) wrong.push(`${one.port}: the removed guide ${removedPage.status}`)
      }
      return wrong
    }
    while ((await lagging()).length > 0 && performance.now() < deadline) await sleep(20)
    t.same(
      await lagging(),
      [],
      'every instance: the list shows the added guide, not the removed one; the added page is 200, the removed one 404',
    )
  },
)
