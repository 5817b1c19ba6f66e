/**
 * What the content-at-scale bench shares between its parts (bench/content-scale.ts, bench/content-scale-peer.ts,
 * bench/content-scale-fleet.ts): N generated guides in a temporary CONTENT_DIR, a timed GET, a crawl of every guide's
 * page data a few at a time, and Courier's built server started as `npm start` starts it.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { readStartCommand } from '../src/build/index.ts'
import { serverEntryFile } from './build-output.ts'
import { projectRoot } from './config.ts'
import { startServer, type ServerProcess } from './processes.ts'

export const crawlersAtOnce = 4
/** The bench's own REVALIDATE_TOKEN (printable, 32 characters or more). */
export const revalidateToken = 'bench-content-scale-revalidate-token-0123456789'
const paragraph =
  'A guide generated for the bench: its words stand for the prose an author writes, a few paragraphs under each of ' +
  'its headings, so that each file weighs what a real guide of the example weighs. '

/** N guides of about 2.9 KB, in a new CONTENT_DIR. */
export async function generateContent(count: number): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'courier-bench-guides-'))
  for (const folder of ['guides', 'faq', 'images']) await mkdir(path.join(dir, folder))
  const body = ['One', 'Two', 'Three'].map((heading) => `## ${heading}\n\n${paragraph.repeat(5)}\n`).join('\n')
  for (let index = 0; index < count; index++) {
    const frontMatter = `title: "Guide number ${index}"\nsummary: "One of ${count} generated guides."\norder: ${index}`
    await writeFile(path.join(dir, 'guides', `guide-${index}.md`), `---\n${frontMatter}\n---\n\n${body}`)
  }
  return dir
}

export async function timed(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ ms: number; bytes: number; status: number; body: Buffer }> {
  const started = performance.now()
  const response = await fetch(url, { headers })
  const body = Buffer.from(await response.arrayBuffer())
  return { ms: performance.now() - started, bytes: body.byteLength, status: response.status, body }
}

export function percentile(sorted: readonly number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? Number.NaN
}

export interface Crawl {
  totalS: number
  p50: number
  p99: number
  failed: number
}

/**
 * `count` URLs (`urlOf(0)` to `urlOf(count - 1)`), `crawlersAtOnce` at a time, each asked once: a failure is any answer
 * but a 200 whose body `accept` takes.
 */
export async function crawl(
  urlOf: (index: number) => string,
  count: number,
  headers: Record<string, string>,
  accept: (body: Buffer) => boolean = () => true,
): Promise<Crawl> {
  const times: number[] = []
  let next = 0
  let failed = 0
  const started = performance.now()
  const crawler = async () => {
    while (next < count) {
      const answer = await timed(urlOf(next++), headers)
      if (answer.status !== 200 || !accept(answer.body)) failed++
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

/** Every generated guide's page data on Courier, as its client asks for it. */
export function crawlCourier(origin: string, count: number, deploymentId: string): Promise<Crawl> {
  return crawl(
    (index) => `${origin}/_next/data/${deploymentId}/guides/guide-${index}.json`,
    count,
    { 'x-deployment-id': deploymentId },
    (body) => body.includes(`"Guide number `),
  )
}

/** The time from spawn until `/api/health` says the index of the guides is ready. */
export async function waitForIndex(origin: string, spawnedAt: number, timeoutMs = 300_000): Promise<number> {
  for (;;) {
    const health = await fetch(`${origin}/api/health`).then(
      (response) => response.json(),
      () => null,
    )
    if (health?.content?.index?.ready) return performance.now() - spawnedAt
    if (performance.now() - spawnedAt > timeoutMs) throw new Error(`the index was not ready within ${timeoutMs} ms`)
    await sleep(10)
  }
}

/** The built server as `npm start` starts it (a free port, ready once it answers its health), over `content`. */
export async function startCourier(
  content: string,
  options: { name?: string; env?: NodeJS.ProcessEnv; onLine?: (line: string) => void } = {},
): Promise<{ server: ServerProcess; spawnedAt: number }> {
  const start = await readStartCommand(projectRoot)
  const spawnedAt = performance.now()
  const server = await startServer({
    name: options.name ?? 'courier',
    args: [...start.nodeArgs, serverEntryFile],
    env: {
      ...process.env,
      ...start.env,
      NODE_ENV: 'production',
      CONTENT_DIR: content,
      LOG_LEVEL: 'warn',
      REVALIDATE_TOKEN: revalidateToken,
      ...options.env,
    },
    healthPath: '/api/health',
    probeIntervalMs: 10,
    ...(options.onLine ? { onLine: options.onLine } : {}),
  })
  return { server, spawnedAt }
}

export const ms = (value: number) => `${value.toFixed(0)} ms`
