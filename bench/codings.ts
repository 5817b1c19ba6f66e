/**
 * brotli, gzip and zstd side by side for each kind of answer Courier compresses (docs/benchmarks.md "Content
 * codings"): the bytes each sends and the CPU each costs per response, done the way Courier does it for that kind.
 * The order `compression.codingPreference` gives each kind (config/compression.ts) is read from these figures.
 *
 * - a kept document (`/`, and the kept 404): gzip parts around the nonce, zstd frames around it, brotli 4 per request
 *   (a client that takes only brotli); zstd 3 per request beside them, the way not taken;
 * - a streamed document (`/status`): whole requests through the app (render and coding), CPU per response;
 * - kept page data (`/_next/data/<id>/index.json`): compressed once per coding (the CPU is paid once, not per response);
 * - answers compressed per request (plugins/compression.ts): the sitemap and a page's HTML (what
 *   a client that takes only brotli gets of a kept document);
 * - the entry chunk: the build's `.br`, `.gz` and `.zst` (compressed once, at build time);
 * - the memory a streamed response's brotli or zstd compressor holds (gzip pieces keep none).
 *
 * Run by `npm run bench:codings` (NODE_ENV=production, on the production build). Prints the tables and rewrites the
 * marked block of docs/benchmarks.md.
 */
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFile, stat, writeFile } from 'node:fs/promises'
import { availableParallelism, loadavg } from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { gunzipSync, zstdDecompressSync } from 'node:zlib'
import { loadConfig } from '../config/env.ts'
import { compression } from '../config/compression.ts'
import { compressBody } from '../src/compression/compress.ts'
import type { ContentCoding } from '../src/compression/negotiate.ts'
import { buildApp } from '../src/app.ts'
import { documentNoncePlaceholder, splitAtNonce } from '../src/render/document-cache.ts'
import { documentBytes, KeptBytes } from '../src/delivery/kept-bytes.ts'
import { entryLoaderUrls } from '../src/render/template.ts'
import { benchmarksDoc, distDir } from './config.ts'
import { codingsBlockMarkers, rewriteBlock } from './readme-block.ts'
import { cpuPerCall } from './stats.ts'

/** Rounds of each measurement, the median kept: the machine is shared, a round may be disturbed. */
const rounds = 15
/** Responses per round in process (a few µs each) and through the app (a render each: fewer). */
const perRound = 200
const requestsPerRound = 40
const codings: readonly ContentCoding[] = ['gzip', 'br', 'zstd']

type App = Awaited<ReturnType<typeof buildApp>>
interface Cell {
  us: number
  bytes: number
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
}

function cpuMicroseconds(work: () => Buffer): Cell {
  return cpuPerCall(work, rounds, perRound)
}

/**
 * The answer as served, once the server's load shedding (plugins/load-shedding.ts) sees the loop free again: the
 * measurements block it for seconds, and it rightly answers 503 meanwhile.
 */
async function served(app: App, url: string, status: number, headers: Record<string, string> = {}) {
  for (let attempt = 0; attempt < 150; attempt++) {
    const response = await app.inject({ url, headers })
    if (response.statusCode === status) return response
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`${url} did not answer ${status}`)
}

/** A kept document per coding, as Courier sends each (and zstd 3 per request, the way not taken). */
async function keptDocument(app: App, url: string, status: number): Promise<Record<string, Cell>> {
  const sample = (await served(app, url, status)).body
  const nonce = /nonce="([^"]+)"/.exec(sample)?.[1] ?? ''
  const kept = splitAtNonce(sample.split(`nonce="${nonce}"`).join(`nonce="${documentNoncePlaceholder}"`))
  if (!kept) throw new Error(`${url}: the page does not split at its nonce`)
  // The sender's assembly of a kept document's bytes, its compressed parts kept as a server keeps them.
  const keptBytes = new KeptBytes()
  const fresh = () => randomBytes(16).toString('base64')
  const plain = documentBytes(kept, 'n')
  if (!gunzipSync(keptBytes.gzip(kept, 'n')).equals(plain)) throw new Error('gzip parts differ')
  if (!zstdDecompressSync(keptBytes.zstd(kept, 'n')).equals(plain)) throw new Error('zstd frames differ')
  return {
    gzip: cpuMicroseconds(() => keptBytes.gzip(kept, fresh())),
    br: cpuMicroseconds(() => compressBody(documentBytes(kept, fresh()), 'br', 'perRequest')),
    zstd: cpuMicroseconds(() => keptBytes.zstd(kept, fresh())),
    'zstd 3 per request': cpuMicroseconds(() => compressBody(documentBytes(kept, fresh()), 'zstd', 'perRequest')),
  }
}

/** Whole requests through the app with each coding: render and coding, CPU per response, bytes on the wire. */
async function streamedDocument(app: App, url: string): Promise<Record<string, Cell>> {
  const cells: Record<string, Cell> = {}
  for (const coding of ['identity', ...codings]) {
    const headers = { 'accept-encoding': coding }
    const first = await served(app, url, 200, headers)
    if ((first.headers['content-encoding'] ?? 'identity') !== coding) throw new Error(`${url}: ${coding} not sent`)
    const samples: number[] = []
    const sizes: number[] = []
    for (let round = 0; round < rounds; round++) {
      const started = process.cpuUsage()
      for (let index = 0; index < requestsPerRound; index++) {
        const response = await app.inject({ url, headers })
        if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode} during the measurement`)
        sizes.push(response.rawPayload.length)
      }
      const used = process.cpuUsage(started)
      samples.push((used.user + used.system) / requestsPerRound)
    }
    cells[coding] = { us: median(samples), bytes: median(sizes) }
  }
  return cells
}

/** Kept page data: compressed once per coding; the CPU is that one compression. */
async function pageData(app: App): Promise<Record<string, Cell>> {
  const url = `/_next/data/${app.deploymentId}/index.json`
  const body = (await served(app, url, 200, { 'x-deployment-id': app.deploymentId })).rawPayload
  return Object.fromEntries(codings.map((coding) => [coding, cpuOnce(() => compressBody(body, coding, 'once'))]))
}

function cpuOnce(work: () => Buffer): Cell {
  const samples: number[] = []
  let bytes = 0
  for (let round = 0; round < 5; round++) {
    const started = process.cpuUsage()
    bytes = work().length
    const used = process.cpuUsage(started)
    samples.push(used.user + used.system)
  }
  return { us: median(samples), bytes }
}

/** What plugins/compression.ts compresses per request, for a body of `url`. */
async function perRequest(app: App, url: string, status: number): Promise<Record<string, Cell>> {
  const body = (await served(app, url, status)).rawPayload
  return Object.fromEntries(
    codings.map((coding) => [coding, cpuMicroseconds(() => compressBody(body, coding, 'perRequest'))]),
  )
}

/** The entry chunk's files written at build time, and what compressing it once costs. */
async function entryChunk(app: App): Promise<{ name: string; plain: number; cells: Record<string, Cell> }> {
  const home = (await served(app, '/', 200)).body
  const entry = entryLoaderUrls(home).entries[0]
  if (!entry) throw new Error('`/` starts no script')
  const name = new URL(entry, 'http://courier.invalid').pathname.split('/').pop()!
  const file = path.join(distDir, 'client', 'chunks', name)
  const plain = await readFile(file)
  const cells: Record<string, Cell> = {}
  for (const [coding, suffix] of [
    ['gzip', '.gz'],
    ['br', '.br'],
    ['zstd', '.zst'],
  ] as const) {
    const { size } = await stat(`${file}${suffix}`)
    cells[coding] = { us: cpuOnce(() => compressBody(plain, coding, 'once')).us, bytes: size }
  }
  return { name, plain: plain.length, cells }
}

/** Concurrent compressors a memory measurement holds at once. */
const concurrentStreams = 200

/**
 * What one streamed response's compressor holds, in a fresh process each (so no freed memory of another is reused):
 * RSS growth with `concurrentStreams` of them open, each having compressed and flushed 20 kB of the page, per stream.
 */
function streamMemoryKiB(coding: 'br' | 'zstd', html: string): number {
  const script = `
    const { flushedStream } = await import(${JSON.stringify(new URL('../src/compression/compress.ts', import.meta.url).href)})
    const { PassThrough } = await import('node:stream')
    const html = Buffer.from(process.env.HTML)
    globalThis.gc()
    const before = process.memoryUsage().rss
    const held = []
    for (let index = 0; index < ${concurrentStreams}; index++) {
      const source = new PassThrough()
      const stream = flushedStream(source, ${JSON.stringify(coding)})
      stream.on('data', () => {})
      source.write(html)
      held.push(source, stream)
    }
    await new Promise((resolve) => setTimeout(resolve, 500))
    process.stdout.write(String((process.memoryUsage().rss - before) / ${concurrentStreams} / 1024))
  `
  const output = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    env: { ...process.env, HTML: html.repeat(Math.ceil(20_000 / html.length)).slice(0, 20_000) },
  })
  return Number(output.toString())
}

const micro = (us: number) => (us >= 1000 ? `${(us / 1000).toFixed(1)} ms` : `${us.toFixed(1)} µs`)
const cell = (value: Cell | undefined) => (value ? `${value.bytes.toLocaleString('en')} B, ${micro(value.us)}` : '')

async function main(): Promise<void> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent' })
  const app = await buildApp(config, { logger: pino({ level: 'silent' }) })
  await app.ready()
  const header = '| answer | gzip | br | zstd | other |\n|---|---:|---:|---:|---:|'
  const rows: string[] = []
  const row = (label: string, cells: Record<string, Cell>, other = '') =>
    rows.push(`| ${label} | ${cell(cells.gzip)} | ${cell(cells.br)} | ${cell(cells.zstd)} | ${other} |`)
  for (const [url, status] of [
    ['/', 200],
    ['/no-such-page', 404],
  ] as const) {
    const cells = await keptDocument(app, url, status)
    row(`kept document \`${url}\`, per response`, cells, `zstd 3 per request: ${cell(cells['zstd 3 per request'])}`)
  }
  const streamed = await streamedDocument(app, '/status')
  row(
    'streamed document `/status`, whole request (render and coding)',
    streamed,
    `identity: ${cell(streamed.identity)}`,
  )
  row('kept page data `/` (compressed once)', await pageData(app))
  row('per request: `/sitemap-0.xml`', await perRequest(app, '/sitemap-0.xml', 200))
  row(
    'per request: the HTML of `/` (a kept document, for a client that takes brotli only)',
    await perRequest(app, '/', 200),
  )
  const entry = await entryChunk(app)
  row(`entry chunk \`${entry.name}\` (${entry.plain.toLocaleString('en')} B; at build time)`, entry.cells)
  const html = (await served(app, '/', 200)).body
  await app.close()
  const memory = (['br', 'zstd'] as const).map(
    (coding) => `${Math.round(median([0, 1, 2].map(() => streamMemoryKiB(coding, html))))} KiB`,
  )
  rows.push(
    `| memory per streamed response (RSS with ${concurrentStreams} compressors open, each having flushed 20 kB) | (none: pieces) | ${memory[0]} | ${memory[1]} |  |`,
  )
  const load = loadavg()[0]!.toFixed(1)
  const stamp = `Latest run ${new Date().toISOString().slice(0, 10)}, Node ${process.versions.node}, production build, load average ${load} on ${availableParallelism()} cores when it ended; CPU per response (median of ${rounds} rounds), or per compression where it is done once.`
  const block = `${stamp}\n\n${header}\n${rows.join('\n')}\n`
  process.stdout.write(block)
  await writeFile(benchmarksDoc, rewriteBlock(await readFile(benchmarksDoc, 'utf8'), block, codingsBlockMarkers))
  process.stdout.write(`order now: ${JSON.stringify(compression.codingPreference)}\n`)
}

main().catch((error: unknown) => {
  process.stderr.write(`codings: ${(error as Error)?.stack ?? String(error)}\n`)
  process.exit(1)
})
