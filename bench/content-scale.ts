/**
 * Content at scale (docs/content.md "How many pages"): the built server started as `npm start` starts it, with a
 * content folder of N generated guides (2.9 KB each), for N = 13, 1,000 and 10,000 (and what the arguments name, e.g.
 * `-- 100000`). For each: the time from spawn to the index of the guides being ready (`/api/health`), the first
 * answers of `/`, `/guides`, `/guides/page/2` and a guide, the size of every listing page, a crawl of every guide's
 * page data 4 at a time (total, p50, p99), the server's resident set after it, and a revalidation of the tag
 * `guides` (docs/content.md "Revalidation on demand": every kept guide marked) while 4 clients keep reading guides:
 * the call's time and what it marked, the readers' p50/p99 and 5xx, and the resident set after. Needs `npm run build`
 * first; only 127.0.0.1.
 *
 *   npm run bench:content
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { contentIndex } from '../config/content.ts'
import { readStartCommand } from '../src/build/index.ts'
import { serverEntryFile } from './build-output.ts'
import { residentMiB } from './process-tree.ts'
import { startServer } from './processes.ts'

const root = path.resolve(import.meta.dirname, '..')
const crawlersAtOnce = 4
/** The bench's own REVALIDATE_TOKEN (printable, 32 characters or more). */
const revalidateToken = 'bench-content-scale-revalidate-token-0123456789'
/** How long the readers go on after the revalidation. */
const readAfterRevalidationMs = 10_000
const paragraph =
  'A guide generated for the bench: its words stand for the prose an author writes, a few paragraphs under each of ' +
  'its headings, so that each file weighs what a real guide of the example weighs. '

/** N guides of about 2.9 KB, in a new CONTENT_DIR. */
async function generateContent(count: number): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'courier-bench-guides-'))
  for (const folder of ['guides', 'faq', 'images']) await mkdir(path.join(dir, folder))
  const body = ['One', 'Two', 'Three'].map((heading) => `## ${heading}\n\n${paragraph.repeat(5)}\n`).join('\n')
  for (let index = 0; index < count; index++) {
    const frontMatter = `title: "Guide number ${index}"\nsummary: "One of ${count} generated guides."\norder: ${index}`
    await writeFile(path.join(dir, 'guides', `guide-${index}.md`), `---\n${frontMatter}\n---\n\n${body}`)
  }
  return dir
}

async function timed(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ ms: number; bytes: number; status: number }> {
  const started = performance.now()
  const response = await fetch(url, { headers })
  const bytes = (await response.arrayBuffer()).byteLength
  return { ms: performance.now() - started, bytes, status: response.status }
}

function percentile(sorted: readonly number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN
}

/** Every guide's page data, `crawlersAtOnce` at a time: each a first load. */
async function crawl(origin: string, count: number, deploymentId: string) {
  const times: number[] = []
  let next = 0
  let failed = 0
  const started = performance.now()
  const crawler = async () => {
    while (next < count) {
      const url = `${origin}/_next/data/${deploymentId}/guides/guide-${next++}.json`
      const answer = await timed(url, { 'x-deployment-id': deploymentId })
      if (answer.status !== 200) failed++
      times.push(answer.ms)
    }
  }
  await Promise.all(Array.from({ length: crawlersAtOnce }, crawler))
  times.sort((a, b) => a - b)
  return {
    totalS: (performance.now() - started) / 1000,
    p50: percentile(times, 0.5),
    p99: percentile(times, 0.99),
    failed,
  }
}

/**
 * `POST /api/revalidate {"tags":["guides"]}` while `crawlersAtOnce` clients read random guides' page data (each marked
 * guide regenerates when a reader asks for it): the call's answer, and the readers from a second before it to
 * `readAfterRevalidationMs` after.
 */
async function revalidateUnderLoad(origin: string, count: number, deploymentId: string) {
  let reading = true
  let serverErrors = 0
  const times: number[] = []
  const reader = async () => {
    while (reading) {
      const url = `${origin}/_next/data/${deploymentId}/guides/guide-${Math.floor(Math.random() * count)}.json`
      const answer = await timed(url, { 'x-deployment-id': deploymentId })
      if (answer.status >= 500) serverErrors++
      times.push(answer.ms)
    }
  }
  const readers = Array.from({ length: crawlersAtOnce }, reader)
  await sleep(1_000)
  const started = performance.now()
  const response = await fetch(`${origin}/api/revalidate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${revalidateToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ tags: ['guides'] }),
  })
  const answer = (await response.json()) as { regenerations?: { marked: number } }
  const answerMs = performance.now() - started
  await sleep(readAfterRevalidationMs)
  reading = false
  await Promise.all(readers)
  times.sort((a, b) => a - b)
  return {
    status: response.status,
    answerMs,
    marked: answer.regenerations?.marked ?? Number.NaN,
    reads: times.length,
    p50: percentile(times, 0.5),
    p99: percentile(times, 0.99),
    serverErrors,
  }
}

async function waitForIndex(origin: string, spawnedAt: number): Promise<number> {
  for (;;) {
    const health = await fetch(`${origin}/api/health`).then(
      (response) => response.json(),
      () => null,
    )
    if (health?.content?.index?.ready) return performance.now() - spawnedAt
    if (performance.now() - spawnedAt > 120_000) throw new Error('the index was not ready within 2 minutes')
    await sleep(10)
  }
}

async function measure(count: number, deploymentId: string) {
  const content = await generateContent(count)
  const start = await readStartCommand(root)
  const spawnedAt = performance.now()
  // Started as the other benches start Courier (bench/processes.ts): a free port, ready once it answers its health.
  const server = await startServer({
    name: 'courier',
    args: [...start.nodeArgs, serverEntryFile],
    env: {
      ...process.env,
      ...start.env,
      NODE_ENV: 'production',
      CONTENT_DIR: content,
      LOG_LEVEL: 'warn',
      REVALIDATE_TOKEN: revalidateToken,
    },
    healthPath: '/api/health',
    probeIntervalMs: 10,
  })
  const { origin } = server
  try {
    const indexReadyMs = await waitForIndex(origin, spawnedAt)
    const first = {
      home: await timed(`${origin}/`),
      guides: await timed(`${origin}/guides`),
      page2: await timed(`${origin}/guides/page/2`),
      guide: await timed(`${origin}/guides/guide-${Math.floor(count / 2)}`),
    }
    const pages = Math.ceil(count / contentIndex.listingPageSize)
    let listingMaxBytes = first.guides.bytes
    let listingMaxMs = first.guides.ms
    for (let page = 2; page <= Math.min(pages, 200); page++) {
      const answer = await timed(`${origin}/guides/page/${page}`)
      listingMaxBytes = Math.max(listingMaxBytes, answer.bytes)
      listingMaxMs = Math.max(listingMaxMs, answer.ms)
    }
    const crawled = await crawl(origin, count, deploymentId)
    const rss = residentMiB(server.pid)
    const revalidated = await revalidateUnderLoad(origin, count, deploymentId)
    const rssAfterRevalidation = residentMiB(server.pid)
    return {
      revalidated,
      rssAfterRevalidation,
      count,
      indexReadyMs,
      first,
      listingMaxBytes,
      listingMaxMs,
      pagesChecked: Math.min(pages, 200),
      crawled,
      rss,
    }
  } finally {
    await server.stop()
    await rm(content, { recursive: true, force: true })
  }
}

async function main() {
  const counts = [
    13,
    1_000,
    10_000,
    ...process.argv
      .slice(2)
      .map(Number)
      .filter((n) => Number.isInteger(n) && n > 0),
  ]
  const { deploymentId } = JSON.parse(await readFile(path.join(root, 'dist', 'deployment.json'), 'utf8')) as {
    deploymentId: string
  }
  const ms = (value: number) => `${value.toFixed(0)} ms`
  for (const count of counts) {
    const r = await measure(count, deploymentId)
    console.log(
      [
        `${r.count} guides`,
        `  index ready ${ms(r.indexReadyMs)} after spawn; RSS after the crawl ${r.rss.toFixed(0)} MiB`,
        `  first answers: / ${ms(r.first.home.ms)} (${r.first.home.bytes} B), /guides ${ms(r.first.guides.ms)} (${r.first.guides.bytes} B), ` +
          `/guides/page/2 ${ms(r.first.page2.ms)} (${r.first.page2.bytes} B, ${r.first.page2.status}), a guide ${ms(r.first.guide.ms)} (${r.first.guide.bytes} B)`,
        `  listing pages (${r.pagesChecked} checked): largest ${r.listingMaxBytes} B, slowest first answer ${ms(r.listingMaxMs)}`,
        `  crawl of every guide's page data, ${crawlersAtOnce} at a time: ${r.crawled.totalS.toFixed(1)} s, p50 ${ms(r.crawled.p50)}, p99 ${ms(r.crawled.p99)}, ${r.crawled.failed} failed`,
        `  revalidation of the tag guides with ${crawlersAtOnce} readers: ${r.revalidated.status} in ${ms(r.revalidated.answerMs)}, ` +
          `${r.revalidated.marked} marked; readers ${r.revalidated.reads} reads, p50 ${ms(r.revalidated.p50)}, ` +
          `p99 ${ms(r.revalidated.p99)}, ${r.revalidated.serverErrors} 5xx; RSS after ${r.rssAfterRevalidation.toFixed(0)} MiB`,
      ].join('\n'),
    )
  }
}

await main()
