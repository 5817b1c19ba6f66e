/**
 * The scale suite's main run (docs/running-at-scale.md "Tests: `npm run test:scale`"): nginx with deploy/nginx/ in front of three Courier
 * processes sharing one redis-server, every process on a loopback port of its own, started and stopped here.
 * In order: a streamed page through nginx; one transform per image across the instances and the client-report limit
 * across instances through nginx; Redis stopped and started again under requests; the asset routes and their cache;
 * and 30 s of load over the mix while one instance is stopped and replaced.
 */
import { readFile, rm } from 'node:fs/promises'
import path from 'node:path'
import t from 'tap'
import { defaultDistDir } from '../../config/env.ts'
import { writeRouting } from '../../deploy/nginx-prefix.ts'
import { publishedChunksDir } from '../../deploy/shared-assets.ts'
import { entryLoaderUrls } from '../../src/render/template.ts'
import { getChunks } from '../helpers/http.ts'
import type { LogLine } from '../helpers/app.ts'
import { runMixedLoad } from './load.ts'
import { projectRoot, startServer, type ServerProcess } from '../reliability/server-process.ts'
import { buildMix, readMixSources } from '../reliability/targets.ts'
import { publicImagePath } from '../helpers/site-pages.ts'
import { startNginxInFront, startRedis, waitFor } from './processes.ts'

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const countLines = (instances: ServerProcess[], pattern: RegExp) =>
  instances.reduce((sum, one) => sum + one.logs().filter((line: LogLine) => pattern.test(line.msg)).length, 0)

const redis = await startRedis(t)
// The instances serve the test build (COURIER_TEST_ROUTES): its assets are the ones nginx publishes.
const distDir = path.join(projectRoot, defaultDistDir(true))
const { deploymentId } = JSON.parse(await readFile(path.join(distDir, 'deployment.json'), 'utf8')) as {
  deploymentId: string
}
const instanceEnv = {
  REDIS_URL: redis.url,
  // nginx is the one proxy in front, on loopback: its X-Forwarded-For names the client.
  TRUST_PROXY: '127.0.0.1',
  COURIER_TEST_ROUTES: 'true',
  LOG_LEVEL: 'debug',
}
const startInstance = () => startServer(t, { env: instanceEnv, keepAccessLines: false })
const instances: ServerProcess[] = []
for (let index = 0; index < 3; index += 1) instances.push(await startInstance())
await waitFor('every instance connected to Redis', () => countLines(instances, /redis connected/) === 3)

const routingOf = (servers: ServerProcess[]) => ({
  deployments: [{ id: deploymentId, servers: servers.map((one) => `127.0.0.1:${one.port}`) }],
})
const nginx = await startNginxInFront(t, { distDir, deploymentId, servers: instances.map((one) => one.port) })
const { origin, prefix } = nginx

t.test('5. a streamed page through nginx: the shell arrives before the slow boundary resolves', async (t) => {
  const delayMs = 2_000
  const { status, chunks } = await getChunks(`${origin}/__test/slow?delay=${delayMs}`)
  t.equal(status, 200)
  const shellAt = chunks.findIndex((chunk) => chunk.text.includes('id="slow-fallback"'))
  const resolvedAt = chunks.findIndex((chunk) => chunk.text.includes('id="slow-section"'))
  t.ok(shellAt >= 0 && resolvedAt >= 0, 'both the fallback and the resolved section arrive')
  t.ok(shellAt < resolvedAt, 'the shell (with the fallback) comes in an earlier chunk than the resolved boundary')
  // Not a speed figure: the boundary resolves on the server at delayMs, so a shell before it was not held back.
  t.ok(
    chunks[shellAt]!.at < delayMs,
    `the shell arrived at ${Math.round(chunks[shellAt]!.at)} ms, before the boundary (${delayMs} ms)`,
  )
  t.ok(chunks[resolvedAt]!.at >= delayMs - 50, 'the boundary came when it resolved')
})

t.test(
  '3. one transform per image across three instances; the client-report limit holds across them through nginx',
  async (t) => {
    const imagePath = `/_next/image?url=${encodeURIComponent(publicImagePath())}&w=1080&q=75`
    const transformsBefore = countLines(instances, /^image transformed$/)
    const answers = await Promise.all(
      instances.map((one) =>
        fetch(`${one.origin}${imagePath}`, { headers: { accept: 'image/webp' } }).then(async (response) => ({
          status: response.status,
          state: response.headers.get('x-image-cache'),
          etag: response.headers.get('etag'),
          bytes: (await response.arrayBuffer()).byteLength,
        })),
      ),
    )
    t.same(
      answers.map((answer) => answer.status),
      [200, 200, 200],
    )
    t.equal(new Set(answers.map((answer) => answer.etag)).size, 1, 'the same image from each')
    await sleep(200)
    t.equal(
      countLines(instances, /^image transformed$/) - transformsBefore,
      1,
      'one transform in the cluster (debug log lines of all three)',
    )
    t.equal(countLines(instances, /^image made by another instance$/), 2, 'the two others waited for it')
    for (const one of instances) {
      const again = await fetch(`${one.origin}${imagePath}`, { headers: { accept: 'image/webp' } })
      t.equal(again.headers.get('x-image-cache'), 'HIT', `a HIT on ${one.port} afterwards`)
      await again.arrayBuffer()
    }

    const report = JSON.stringify({ source: 'onerror', message: 'boom', url: 'http://localhost/' })
    const post = (client: string) =>
      fetch(`${origin}/api/client-errors`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': client },
        body: report,
      }).then(async (response) => {
        await response.arrayBuffer()
        return response.status
      })
    const statuses: number[] = []
    for (let index = 0; index < 20; index += 1) statuses.push(await post('203.0.113.50'))
    t.same(statuses, new Array(20).fill(204), 'a budget of 20 per minute')
    t.equal(await post('203.0.113.50'), 429, 'the 21st is refused, though the 20 went to different instances')
    t.equal(
      await post('203.0.113.51'),
      204,
      'another client (by X-Forwarded-For through the trusted proxy) has its own',
    )
    await sleep(200)
    const reportLines = instances.map((one) => one.logs().filter((line) => line.msg === 'client error reported').length)
    t.ok(
      reportLines.filter((count) => count > 0).length >= 2,
      `nginx spread the reports over the instances (${reportLines.join('/')})`,
    )
  },
)

t.test('4. Redis stopped mid-run and started again: no 5xx, the warn and info lines, sharing resumes', async (t) => {
  await redis.stop()
  await waitFor('every instance says Redis is lost', () => countLines(instances, /redis connection lost/) === 3)
  const statuses: number[] = []
  const paths = [
    '/',
    '/__test/partial',
    `/_next/data/${deploymentId}/index.json`,
    `/_next/image?url=${encodeURIComponent(publicImagePath())}&w=640&q=75`,
  ]
  for (let round = 0; round < 10; round += 1) {
    for (const requestPath of paths) {
      const response = await fetch(`${origin}${requestPath}`, {
        headers: { 'x-deployment-id': deploymentId, 'cache-control': 'no-cache' },
      })
      await response.arrayBuffer()
      statuses.push(response.status)
      if (response.status >= 500) t.comment(`${response.status} ${requestPath} ${response.headers.get('x-request-id')}`)
    }
    statuses.push(
      await fetch(`${origin}/api/client-errors`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.60' },
        body: JSON.stringify({ source: 'onerror', message: 'boom', url: 'http://localhost/' }),
      }).then(async (response) => {
        await response.arrayBuffer()
        return response.status
      }),
    )
  }
  t.notOk(
    statuses.some((status) => status >= 500),
    `no 5xx over ${statuses.length} requests while Redis is gone`,
  )
  await redis.start()
  await waitFor('every instance says Redis is back', () => countLines(instances, /redis connection restored/) === 3)
  t.equal(countLines(instances, /redis connection lost/), 3, 'one warn line per instance')
  for (const one of instances) {
    const lost = one.logs().find((line) => /redis connection lost/.test(line.msg))
    t.equal(lost?.level, 40, 'warn')
    const back = one.logs().find((line) => /redis connection restored/.test(line.msg))
    t.equal(back?.level, 30, 'info')
  }
  const imagePath = `/_next/image?url=${encodeURIComponent(publicImagePath())}&w=828&q=75`
  const [first, second] = instances as [ServerProcess, ServerProcess]
  const made = await fetch(`${first.origin}${imagePath}`)
  await made.arrayBuffer()
  t.equal(made.headers.get('x-image-cache'), 'MISS')
  const shared = await fetch(`${second.origin}${imagePath}`)
  await shared.arrayBuffer()
  t.equal(shared.headers.get('x-image-cache'), 'HIT', 'sharing resumed: made on one instance, a HIT on another')
})

t.test(
  'asset routes: the shared folder first, then the named deployment, cached; a 404 of a hashed asset never cached',
  async (t) => {
    const home = await (await fetch(`${origin}/`)).text()
    const entry = entryLoaderUrls(home).entries[0]
    if (!entry) throw new Error('`/` starts no script')
    const script = new URL(entry, origin).pathname
    const fromFolder = await fetch(`${origin}${script}?dpl=${deploymentId}`)
    t.equal(fromFolder.status, 200)
    t.equal(fromFolder.headers.get('x-courier-asset'), 'shared-folder', 'served by nginx from the published folder')
    t.match(fromFolder.headers.get('cache-control') ?? '', /immutable/)
    await fromFolder.arrayBuffer()

    // A file not (or no longer) in the folder comes from the instances of the deployment, through the cache.
    const file = path.join(publishedChunksDir(path.join(prefix, 'assets'), deploymentId), path.basename(script))
    const bytes = await readFile(file)
    await rm(file)
    const first = await fetch(`${origin}${script}?dpl=${deploymentId}`)
    t.equal(first.status, 200)
    t.equal(first.headers.get('x-cache-status'), 'MISS')
    t.equal(Buffer.from(await first.arrayBuffer()).equals(bytes), true, 'the same bytes from an instance')
    const second = await fetch(`${origin}${script}?dpl=${deploymentId}`)
    t.equal(second.headers.get('x-cache-status'), 'HIT', 'cached by nginx')
    await second.arrayBuffer()

    const missing = `/_next/static/chunks/not-yet-published-A1b2C3d4.js?dpl=${deploymentId}`
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const response = await fetch(`${origin}${missing}`)
      await response.arrayBuffer()
      t.equal(response.status, 404)
      t.equal(
        response.headers.get('x-cache-status'),
        'MISS',
        `a 404 is asked of the instances again (attempt ${attempt + 1})`,
      )
    }

    // Page data names its deployment in the path; an unknown deployment goes to the newest, which answers 409.
    const data = await fetch(`${origin}/_next/data/${deploymentId}/index.json`, {
      headers: { 'x-deployment-id': deploymentId },
    })
    t.equal(data.status, 200)
    t.equal(data.headers.get('x-deployment-id'), deploymentId)
    await data.arrayBuffer()
    const gone = await fetch(`${origin}/_next/data/retired-deployment/index.json`, {
      headers: { 'x-deployment-id': 'retired-deployment' },
    })
    t.equal(gone.status, 409, 'a deployment with no instance left: the newest says 409, the client navigates fully')
    await gone.arrayBuffer()
  },
)

t.test(
  '1. 30 s of load over the mix through nginx, one instance stopped (SIGTERM) and replaced: every GET answered right',
  async (t) => {
    const sources = await readMixSources(origin, distDir)
    // Through nginx an image is a hit of nginx's cache (which keeps the headers of the answer it stored, MISS included)
    // or of an instance's: either way the same bytes.
    const mix = (await buildMix(sources)).map((target) =>
      target.name !== 'image, cache hit'
        ? target
        : {
            ...target,
            check: (_body: string, headers: Record<string, string>) =>
              (/^(HIT|STALE|UPDATING)$/.test(headers['x-cache-status'] ?? '') ||
                /^(HIT|STALE)$/.test(headers['x-image-cache'] ?? '')) &&
              Number(headers['content-length']) === sources.imageBytes,
          },
    )
    const loadSeconds = 30
    const run = runMixedLoad(origin, mix, { seconds: loadSeconds, clients: 16 })

    // A third of the way in: stop one instance while nginx still routes to it, start its replacement, point nginx at
    // it (reload), as a deploy or a crash recovery would.
    await sleep(10_000)
    const victim = instances[1]!
    const stopped = victim.stop('SIGTERM')
    const replacement = await startInstance()
    await writeRouting(prefix, routingOf([instances[0]!, replacement, instances[2]!]))
    await nginx.reload()
    const exit = await stopped
    t.same(exit, { code: 0, signal: null }, 'the stopped instance drained and exited 0')

    const report = await run
    t.same(report.wrong, {}, 'every response had the right status and body')
    t.equal(report.lost, 0, 'no request lost')
    t.equal(report.answered, report.sent, `every request sent was answered right (${report.answered})`)
    t.ok(report.sent > 0)
    t.comment(
      `load through nginx: ${report.sent} requests in ${report.seconds} s (${report.requestsPerSecond} req/s), ` +
        `statuses ${JSON.stringify(report.statusCodes)}, resent once after nginx closed a kept-alive connection: ${report.resentAfterClose}`,
    )
    t.ok(replacement.accessCounts().total > 0, 'the replacement took requests')
  },
)
