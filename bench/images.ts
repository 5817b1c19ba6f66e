/**
 * The image optimizer in the bench: a cached hit of GET /_next/image against @fastify/static serving the very same
 * bytes from a file (on the bare server), and the cold transform time of a 1600 px JPEG to a 640 px WebP.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import sharp from 'sharp'
import { imageOptimizer } from '../config/images.ts'
import { configureSharp, transformImage } from '../src/images/transform.ts'
import { projectRoot } from './config.ts'
import type { Target } from './targets.ts'

/** The site's 1600 px photograph, at the smallest device width, as Chromium asks for it. */
const source = '/images/abstract.jpg'
const width = 640
const quality = imageOptimizer.defaultQuality
export const imageAccept = 'image/webp,image/apng,image/*,*/*;q=0.8'
export const imagePath = `/_next/image?url=${encodeURIComponent(source)}&w=${width}&q=${quality}`
/** Where the bare server's @fastify/static serves the copied bytes (BENCH_STATIC_DIR). */
export const staticPrefix = '/static/'
const staticFile = 'abstract-640.webp'

export interface PreparedImages {
  /** Folder holding Courier's bytes as a plain file, for the bare server's @fastify/static. */
  dir: string
  bytes: number
  /** The same bytes served by @fastify/static (the floor of a cache hit). */
  staticTarget: Target
  cleanUp(): Promise<void>
}

/** How long a server may take to fill or refresh its image cache before the bench gives up on it. */
const primeDeadlineMs = 20_000
const primeRetryMs = 50

/**
 * Asks a server for the image until its cache answers a HIT and returns the bytes. A MISS fills the cache; an entry
 * older than minimumCacheTTL (60 s: the bench runs for minutes) answers STALE and is refreshed in the background, so
 * the bench asks again shortly after. Courier says so in x-image-cache, Next in x-nextjs-cache. Run on every fresh
 * server before its image target is loaded, so the load measures hits only.
 */
export async function primeImage(origin: string, cacheHeader: string): Promise<Buffer> {
  const deadline = Date.now() + primeDeadlineMs
  let state: string | null = null
  while (Date.now() < deadline) {
    const response = await fetch(origin + imagePath, {
      headers: { accept: imageAccept },
      signal: AbortSignal.timeout(30_000),
    })
    const bytes = Buffer.from(await response.arrayBuffer())
    if (response.status !== 200)
      throw new Error(`${imagePath} answered ${response.status}: ${bytes.toString('utf8', 0, 300)}`)
    state = response.headers.get(cacheHeader)
    if (state?.toUpperCase() === 'HIT') return bytes
    await sleep(primeRetryMs)
  }
  throw new Error(
    `${origin}${imagePath} never answered ${cacheHeader}: HIT within ${primeDeadlineMs} ms (last: ${state})`,
  )
}

/** The image target of one server: the cached hit, exactly `bytes` long. */
export function imageTarget(server: 'courier' | 'next' | 'baseline', label: string, bytes: number): Target {
  return {
    name: `${label} image (cache hit)`,
    server,
    kind: 'image-hit',
    path: imagePath,
    expectedStatus: 200,
    body: 'bytes',
    markers: [],
    headers: { accept: imageAccept },
    expectedBytes: bytes,
  }
}

/** Writes Courier's cached bytes to a temporary folder for @fastify/static (BENCH_STATIC_DIR of the bare server). */
export async function prepareStaticImage(courierOrigin: string): Promise<PreparedImages> {
  const bytes = await primeImage(courierOrigin, 'x-image-cache')
  const dir = await mkdtemp(path.join(tmpdir(), 'courier-bench-images-'))
  await writeFile(path.join(dir, staticFile), bytes)
  return {
    dir,
    bytes: bytes.length,
    staticTarget: {
      name: 'bare @fastify/static, same bytes',
      server: 'bare',
      kind: 'image-hit',
      path: staticPrefix + staticFile,
      expectedStatus: 200,
      body: 'bytes',
      markers: [],
      headers: { accept: imageAccept },
      expectedBytes: bytes.length,
    },
    cleanUp: () => rm(dir, { recursive: true, force: true }),
  }
}

export interface ColdTransform {
  source: string
  output: string
  runs: number
  /** Each run's time, in order: the first includes loading libvips' WebP encoder. */
  ms: number[]
  medianMs: number
}

/**
 * The optimizer's own transform (same settings: one libvips thread, no libvips cache) run in this process on the
 * 1600 px JPEG: time from source bytes to 640 px WebP bytes, nothing cached between runs.
 */
export async function measureColdTransform(runs = 7): Promise<ColdTransform> {
  configureSharp(imageOptimizer.sharpConcurrency)
  const bytes = await readFile(path.join(projectRoot, 'client', 'public', source))
  const { width: sourceWidth, height: sourceHeight } = await sharp(bytes).metadata()
  const ms: number[] = []
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now()
    await transformImage(
      { bytes, source: 'jpeg', accepted: { avif: false, webp: true }, width, quality },
      imageOptimizer,
    )
    ms.push(Number((performance.now() - started).toFixed(1)))
  }
  const sorted = [...ms].sort((a, b) => a - b)
  return {
    source: `${source} (${sourceWidth}x${sourceHeight} JPEG)`,
    output: `${width} px WebP, q=${quality}`,
    runs,
    ms,
    medianMs: sorted[Math.floor(sorted.length / 2)]!,
  }
}
