/**
 * Images behind the repository's nginx configuration (deploy/nginx/, docs/running-at-scale.md): two Courier processes
 * sharing one redis-server, every process on a loopback port of its own, started and stopped here.
 * - A burst of image requests for distinct URLs, more than the optimizers' queues hold, while documents, page data
 *   and public files are fetched: the optimizer's busy answer must not read to nginx as a dead instance, so no
 *   document, data or file request gets a 5xx (nginx's `no live upstreams`).
 * - The image format through nginx is the one Courier chooses for the same `Accept` (q-values, case), whatever nginx
 *   cached before for another `Accept`.
 */
import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import t from 'tap'
import { images } from '../../config/images.ts'
import { defaultDistDir } from '../../config/env.ts'
import type { LogLine } from '../helpers/app.ts'
import { metricsOriginOf, projectRoot, startServer, type ServerProcess } from '../reliability/server-process.ts'
import { parseExposition, valueOf } from '../metrics/exposition.ts'
import { guides } from '../helpers/content.ts'
import { publicImagePaths, testGuidePath, testGuidesPath } from '../helpers/site-pages.ts'
import { startNginxInFront, startRedis, waitFor } from './processes.ts'

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** How many of `items` fall under each key. */
function countBy<T>(items: readonly T[], keyOf: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const item of items) counts[keyOf(item)] = (counts[keyOf(item)] ?? 0) + 1
  return counts
}

const linesOf = (instances: ServerProcess[], matches: (line: LogLine) => boolean) =>
  instances.flatMap((one) => one.logs().filter(matches))

const redis = await startRedis(t)
const distDir = path.join(projectRoot, defaultDistDir(true))
const { deploymentId } = JSON.parse(await readFile(path.join(distDir, 'deployment.json'), 'utf8')) as {
  deploymentId: string
}
const instanceEnv = { REDIS_URL: redis.url, TRUST_PROXY: '127.0.0.1', COURIER_TEST_ROUTES: 'true' }
const instances: ServerProcess[] = []
const metricsOrigins: string[] = []
for (let index = 0; index < 2; index += 1) {
  instances.push(await startServer(t, { env: { ...instanceEnv, METRICS_PORT: '0' }, keepAccessLines: false }))
  metricsOrigins.push(await metricsOriginOf(instances[index]!))
}

/** One metric summed over both instances' metrics ports. */
async function metricSum(name: string, labels: Record<string, string> = {}): Promise<number> {
  let sum = 0
  for (const metricsOrigin of metricsOrigins) {
    const samples = parseExposition(await (await fetch(`${metricsOrigin}/metrics`)).text())
    sum += valueOf(samples, name, labels) ?? 0
  }
  return sum
}

/** Until both optimizers have worked through their queues (requests nginx gave up on are still transformed). */
async function optimizersIdle(timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const left =
      (await metricSum('courier_image_transform_queue_length')) + (await metricSum('courier_image_transforms_running'))
    if (left === 0) return
    if (Date.now() > deadline) throw new Error(`the optimizers still hold ${left} transforms`)
    await sleep(1_100)
  }
}
await waitFor(
  'both instances connected to Redis',
  () => linesOf(instances, (line) => /redis connected/.test(line.msg)).length === 2,
)

const { origin, prefix } = await startNginxInFront(t, {
  distDir,
  deploymentId,
  servers: instances.map((one) => one.port),
})
/** The site's public images, whatever they are. */
const siteImages = publicImagePaths()
const imagePath = (url: string, width: number) => `/_next/image?url=${encodeURIComponent(url)}&w=${width}`

interface Answer {
  path: string
  status: number
}

async function get(requestPath: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${origin}${requestPath}`, { headers })
  await response.arrayBuffer()
  return { path: requestPath, status: response.status }
}

t.test(
  'a burst of distinct images through nginx fills both optimizers: no document, data or file request gets a 5xx',
  async (t) => {
    // Requests no image is part of, answered by the instances (nginx serves none of them itself).
    // The home page and the test build's pages: kept ones, with and without a parameter, and a partly prerendered one.
    const pages = ['/', testGuidesPath, testGuidePath(guides[0]!.slug), '/__test/partial']
    const site = [
      ...pages,
      `/_next/data/${deploymentId}${testGuidesPath}.json`,
      `/_next/data/${deploymentId}/index.json`,
      '/robots.txt',
      '/sitemap.xml',
      '/favicon.ico',
    ]
    // As a browser sends them: only page-data requests name the deployment (documents, files and images go to the
    // newest deployment's upstream, the one the burst fills).
    const headersOf = (requestPath: string): Record<string, string> =>
      requestPath.startsWith('/_next/data/') ? { 'x-deployment-id': deploymentId } : {}
    for (const requestPath of site)
      t.equal((await get(requestPath, headersOf(requestPath))).status, 200, `${requestPath} answers before the burst`)

    // 165 transforms at once over two instances, each running 2 and queueing 64, so some are refused busy however fast
    // the machine: first the slowest ones (AVIF at the widest sizes, about a second each), which hold both slots of
    // each instance while the rest arrive, then small and middle widths (JPEG sources shrink on load).
    const heavy = siteImages.flatMap((url) =>
      images.deviceSizes.slice(-3).map((width) => ({ url, width, accept: 'image/avif' })),
    )
    const widths = [...images.imageSizes, ...images.deviceSizes.slice(0, 2)]
    const light = ['image/avif', 'image/webp', 'image/jpeg'].flatMap((accept) =>
      siteImages.flatMap((url) => widths.map((width) => ({ url, width, accept }))),
    )
    const burst = [...heavy, ...light]
    let burstDone = false
    const imageAnswers = Promise.all(
      burst.map(({ url, width, accept }) => get(imagePath(url, width), { accept })),
    ).finally(() => (burstDone = true))

    // Four visitors fetching pages, data and files throughout, and 2 s past the burst (nginx's fail_timeout).
    const siteAnswers: Answer[] = []
    let stopAt = Number.POSITIVE_INFINITY
    const visitor = async (offset: number) => {
      for (let index = offset; Date.now() < stopAt; index += 1) {
        if (burstDone && stopAt === Number.POSITIVE_INFINITY) stopAt = Date.now() + 2_000
        const requestPath = site[index % site.length]!
        siteAnswers.push(await get(requestPath, headersOf(requestPath)))
      }
    }
    await Promise.all([0, 2, 4, 6].map(visitor))
    const answered = await imageAnswers

    const imageStatuses = countBy(answered, (answer) => String(answer.status))
    const busy = imageStatuses['429'] ?? 0
    t.comment(`images: ${JSON.stringify(imageStatuses)}`)
    t.ok(busy > 0, `the burst filled the optimizers: ${busy} of ${answered.length} answered busy`)
    // A transform that waits in a queue longer than the instance's connection time-out (30 s) or nginx's read
    // time-out (35 s) ends in nginx's 502/504: that only happens on a machine busy with other work, and is an image lost,
    // not an instance. Never the optimizer's own 5xx, and never nginx's `no live upstreams`.
    t.notOk(imageStatuses['503'], 'no image answered 503')
    t.ok(
      Object.keys(imageStatuses).every((status) => ['200', '429', '502', '504'].includes(status)),
      'every image a 200, a busy 429 or a time-out',
    )
    if (imageStatuses['502'] || imageStatuses['504'])
      t.comment('some images timed out in the queue: this machine is loaded')

    const failed = countBy(
      siteAnswers.filter((answer) => answer.status >= 500),
      (answer) => `${answer.status} ${answer.path}`,
    )
    t.ok(siteAnswers.length >= site.length, `${siteAnswers.length} page, data and file requests during the burst`)
    t.same(failed, {}, `no 5xx among the ${siteAnswers.length} requests beside the burst`)
    const nginxErrors = await readFile(path.join(prefix, 'logs', 'error.log'), 'utf8')
    const nginxReasons = countBy(nginxErrors.split('\n').filter(Boolean), (line) =>
      line
        .replace(/^.*?\*\d+ /, '')
        .replace(/, client:.*$/, '')
        .replace(/\d+/g, 'N'),
    )
    if (Object.keys(nginxReasons).length > 0) t.comment(`nginx error log: ${JSON.stringify(nginxReasons)}`)
    t.notMatch(nginxErrors, /no live upstreams/, 'nginx never ran out of instances')
    t.notMatch(nginxErrors, /upstream server temporarily disabled/, 'nor took one out')

    await optimizersIdle()
    t.equal(
      await metricSum('courier_requests_shed_total', { reason: 'image_busy' }),
      busy,
      'every busy answer counted (image_busy)',
    )
    const busyLines = linesOf(instances, (line) => line.msg === 'image optimizer busy')
    t.equal(busyLines.length, busy, 'one busy line per busy answer (nginx retried none)')
    t.ok(
      busyLines.every((line) => line.level === 40 && !('err' in line)),
      'warn lines without an error or a stack',
    )
    const errorLines = linesOf(instances, (line) => line.level >= 50).map(
      (line) => `${line.msg} ${(line.err as { code?: string } | undefined)?.code ?? ''}`,
    )
    t.same(
      countBy(errorLines, (line) => line),
      {},
      'no error line on either instance',
    )
  },
)

t.test(
  "the format through nginx is Courier's choice for the same Accept (q-values, case), whatever nginx cached",
  async (t) => {
    await optimizersIdle()
    const requestPath = imagePath(siteImages[0]!, 1200)
    const [direct] = instances as [ServerProcess]
    const answerOf = async (base: string, accept: string) => {
      const response = await fetch(`${base}${requestPath}`, { headers: { accept } })
      const bytes = Buffer.from(await response.arrayBuffer())
      return {
        status: response.status,
        type: response.headers.get('content-type'),
        sha: createHash('sha256').update(bytes).digest('hex').slice(0, 16),
        nginxCache: response.headers.get('x-cache-status'),
      }
    }
    // The browsers' own first (so nginx has an AVIF and a WebP variant cached), then the ones that read differently.
    const accepts = [
      'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8',
      'image/webp,*/*',
      'image/avif;q=0, image/webp',
      'IMAGE/AVIF',
      'image/webp;q=0, */*',
      'image/png,image/svg+xml,image/*;q=0.8,video/*;q=0.8,*/*;q=0.5',
    ]
    for (const round of [1, 2]) {
      for (const accept of accepts) {
        const expected = await answerOf(direct.origin, accept)
        const proxied = await answerOf(origin, accept)
        t.equal(expected.status, 200, `${accept}: directly`)
        t.equal(
          proxied.type,
          expected.type,
          `${accept} (round ${round}, nginx cache ${proxied.nginxCache}): ${expected.type} as directly`,
        )
        t.equal(proxied.sha, expected.sha, `${accept} (round ${round}): the same bytes`)
      }
    }
  },
)
