/**
 * Content at scale (docs/content.md "How many pages"): the built server started as `npm start` starts it, with a
 * content folder of N generated guides (2.9 KB each), for N = 13, 1,000 and 10,000 (and what the arguments name, e.g.
 * `-- 100000`). For each: the time from spawn to the index of the guides being ready (`/api/health`), the first
 * answers of `/`, `/guides`, `/guides/page/2` and a guide, every listing page (each must answer 200; the largest and
 * the slowest), the sitemap (its index, and each file's URLs: at most 50,000, together every page), the documents of
 * a sample of guides, a crawl of every guide's page data 4 at a time (total, p50, p99), the server's resident set after
 * it, and a revalidation of the tag `guides` (docs/content.md "Revalidation on demand": every kept guide marked) while
 * 4 clients keep reading guides: the call's time and what it marked, the readers' p50/p99 and 5xx, and the resident
 * set after. Needs `npm run build` first; only 127.0.0.1.
 *
 *   npm run bench:content                        13, 1,000 and 10,000 guides
 *   npm run bench:content -- 100000              and 100,000
 *   npm run bench:content -- --only 100000       100,000 alone
 *   npm run bench:content -- --peer=next [N...]  the crawl against the Next.js peer, back to back, twice (10,000)
 *   npm run bench:content -- --fleet [N]         regenerations across 3 instances, Redis and nginx (10,000)
 */
import { rm } from 'node:fs/promises'
import { setTimeout as sleep } from 'node:timers/promises'
import { contentIndex } from '../config/content.ts'
import { readDeploymentId } from './build-output.ts'
import {
  crawlCourier,
  crawlersAtOnce,
  generateContent,
  ms,
  percentile,
  revalidateToken,
  startCourier,
  timed,
  waitForIndex,
} from './content-bench.ts'
import { compareWithPeer } from './content-scale-peer.ts'
import { fleetRegenerations } from './content-scale-fleet.ts'
import { runBench } from './lifecycle.ts'
import { residentMiB } from './process-tree.ts'
import { loadAverage } from './report.ts'

/** How long the readers go on after the revalidation. */
const readAfterRevalidationMs = 10_000
/** Guides whose document is asked for besides the crawl of every guide's page data. */
const sampledDocuments = 200
/** The sitemaps.org protocol's bound of URLs per file. */
const urlsPerSitemap = 50_000

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

/** Every listing page (`/guides`, then `/guides/page/2` on): how many did not answer 200, the largest, the slowest. */
async function everyListingPage(origin: string, count: number) {
  const pages = Math.max(1, Math.ceil(count / contentIndex.listingPageSize))
  let maxBytes = 0
  let maxMs = 0
  let failed = 0
  for (let page = 1; page <= pages; page++) {
    const answer = await timed(`${origin}${page === 1 ? '/guides' : `/guides/page/${page}`}`)
    if (answer.status !== 200) failed++
    maxBytes = Math.max(maxBytes, answer.bytes)
    maxMs = Math.max(maxMs, answer.ms)
  }
  const pastTheEnd = (await timed(`${origin}/guides/page/${pages + 1}`)).status
  return { pages, failed, maxBytes, maxMs, pastTheEnd }
}

/** The sitemap index and each file it lists: their URLs, the most in one file, and the slowest answer. */
async function sitemapFiles(origin: string) {
  const index = await timed(`${origin}/sitemap.xml`)
  const files = [...index.body.toString('utf8').matchAll(/<loc>[^<]*\/(sitemap-\d+\.xml)<\/loc>/g)].map((m) => m[1]!)
  const urls: number[] = []
  let maxMs = index.ms
  let failed = index.status === 200 ? 0 : 1
  for (const file of files) {
    const answer = await timed(`${origin}/${file}`)
    if (answer.status !== 200) failed++
    urls.push(answer.body.toString('utf8').split('<url>').length - 1)
    maxMs = Math.max(maxMs, answer.ms)
  }
  return { files: files.length, urls, total: urls.reduce((sum, one) => sum + one, 0), maxMs, failed }
}

/** The documents of `sampledDocuments` guides spread over the folder: how many did not answer 200, the slowest. */
async function sampleDocuments(origin: string, count: number) {
  const step = Math.max(1, Math.floor(count / sampledDocuments))
  let failed = 0
  let maxMs = 0
  let asked = 0
  for (let index = 0; index < count; index += step) {
    const answer = await timed(`${origin}/guides/guide-${index}`)
    if (answer.status !== 200 || !answer.body.includes(`Guide number ${index}<`)) failed++
    maxMs = Math.max(maxMs, answer.ms)
    asked++
  }
  return { asked, failed, maxMs }
}

async function measure(count: number, deploymentId: string) {
  const content = await generateContent(count)
  const { server, spawnedAt } = await startCourier(content)
  const { origin } = server
  try {
    const indexReadyMs = await waitForIndex(origin, spawnedAt)
    const first = {
      home: await timed(`${origin}/`),
      guides: await timed(`${origin}/guides`),
      page2: await timed(`${origin}/guides/page/2`),
      guide: await timed(`${origin}/guides/guide-${Math.floor(count / 2)}`),
    }
    const listings = await everyListingPage(origin, count)
    const sitemap = await sitemapFiles(origin)
    const documents = await sampleDocuments(origin, count)
    const crawled = await crawlCourier(origin, count, deploymentId)
    const rss = residentMiB(server.pid)
    const revalidated = await revalidateUnderLoad(origin, count, deploymentId)
    const rssAfterRevalidation = residentMiB(server.pid)
    return { count, indexReadyMs, first, listings, sitemap, documents, crawled, rss, revalidated, rssAfterRevalidation }
  } finally {
    await server.stop()
    await rm(content, { recursive: true, force: true })
  }
}

function report(r: Awaited<ReturnType<typeof measure>>): string {
  const { listings, sitemap, documents } = r
  const sitemapSplit = sitemap.files === Math.ceil(sitemap.total / urlsPerSitemap)
  const sitemapFits = sitemap.urls.every((urls) => urls <= urlsPerSitemap)
  return [
    `${r.count} guides (load average ${loadAverage().join(', ')})`,
    `  index ready ${ms(r.indexReadyMs)} after spawn; RSS after the crawl ${r.rss.toFixed(0)} MiB`,
    `  first answers: / ${ms(r.first.home.ms)} (${r.first.home.bytes} B), /guides ${ms(r.first.guides.ms)} (${r.first.guides.bytes} B), ` +
      `/guides/page/2 ${ms(r.first.page2.ms)} (${r.first.page2.bytes} B, ${r.first.page2.status}), a guide ${ms(r.first.guide.ms)} (${r.first.guide.bytes} B)`,
    `  listing pages: ${listings.pages} asked, ${listings.failed} not 200, largest ${listings.maxBytes} B, ` +
      `slowest first answer ${ms(listings.maxMs)}; the page after the last: ${listings.pastTheEnd}`,
    `  sitemap: ${sitemap.files} files (${sitemap.urls.join(' + ')} = ${sitemap.total} URLs), ${sitemap.failed} not 200, ` +
      `slowest ${ms(sitemap.maxMs)}; split at ${urlsPerSitemap}: ${sitemapSplit && sitemapFits ? 'yes' : 'NO'}`,
    `  guide documents: ${documents.asked} sampled, ${documents.failed} failed, slowest ${ms(documents.maxMs)}`,
    `  crawl of every guide's page data, ${crawlersAtOnce} at a time: ${r.crawled.totalS.toFixed(1)} s, p50 ${ms(r.crawled.p50)}, p99 ${ms(r.crawled.p99)}, ${r.crawled.failed} failed`,
    `  revalidation of the tag guides with ${crawlersAtOnce} readers: ${r.revalidated.status} in ${ms(r.revalidated.answerMs)}, ` +
      `${r.revalidated.marked} marked; readers ${r.revalidated.reads} reads, p50 ${ms(r.revalidated.p50)}, ` +
      `p99 ${ms(r.revalidated.p99)}, ${r.revalidated.serverErrors} 5xx; RSS after ${r.rssAfterRevalidation.toFixed(0)} MiB`,
  ].join('\n')
}

async function main() {
  const args = process.argv.slice(2)
  const named = args.map(Number).filter((n) => Number.isInteger(n) && n > 0)
  const deploymentId = await readDeploymentId()
  if (args.includes('--peer=next')) return compareWithPeer(named.length ? named : [10_000], deploymentId)
  if (args.includes('--fleet')) return fleetRegenerations(named[0] ?? 10_000, deploymentId)
  const unknown = args.filter((arg) => arg.startsWith('--') && arg !== '--only')
  if (unknown.length) throw new Error(`unknown options: ${unknown.join(' ')}`)
  const counts = args.includes('--only') ? named : [13, 1_000, 10_000, ...named]
  for (const count of counts) console.log(report(await measure(count, deploymentId)))
}

await runBench(main, (message) => process.stderr.write(`bench:content: ${message}\n`))
