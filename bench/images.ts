/**
 * The image optimizer in the bench: a cached hit of GET /_next/image against @fastify/static serving the very same
 * bytes from a file (on the bare server), and the cold transform time of a 1600 px JPEG to a 640 px WebP.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
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
  /** Folder holding the optimizer's bytes as a plain file, for the bare server's @fastify/static. */
  dir: string
  bytes: number
  targets: Target[]
  cleanUp(): Promise<void>
}

/**
 * Asks Courier for the image twice (a MISS fills the cache, then a HIT must follow), writes the bytes it answered to
 * a temporary folder, and returns the two targets, each expecting exactly that many bytes.
 */
export async function prepareImages(courierOrigin: string): Promise<PreparedImages> {
  const get = () => fetch(courierOrigin + imagePath, { headers: { accept: imageAccept }, signal: AbortSignal.timeout(30_000) })
  const first = await get()
  if (first.status !== 200) throw new Error(`${imagePath} answered ${first.status}: ${await first.text()}`)
  await first.arrayBuffer()
  const second = await get()
  const state = second.headers.get('x-image-cache')
  if (second.status !== 200 || state !== 'HIT') throw new Error(`${imagePath} answered ${second.status} ${state}, not a HIT`)
  const bytes = Buffer.from(await second.arrayBuffer())
  const dir = await mkdtemp(path.join(tmpdir(), 'courier-bench-images-'))
  await writeFile(path.join(dir, staticFile), bytes)
  const common = { expectedStatus: 200, markers: [], headers: { accept: imageAccept }, expectedBytes: bytes.length }
  return {
    dir,
    bytes: bytes.length,
    targets: [
      { ...common, name: 'Courier image (cache hit)', server: 'courier', path: imagePath },
      { ...common, name: 'bare @fastify/static, same bytes', server: 'bare', path: staticPrefix + staticFile },
    ],
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
    await transformImage({ bytes, source: 'jpeg', format: 'webp', width, quality }, imageOptimizer)
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
