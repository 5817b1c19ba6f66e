import { readdir } from 'node:fs/promises'
import path from 'node:path'
import { projectRoot } from '../../config/env.ts'
import type { PageImage } from '../../site/data-types.ts'

/**
 * `?delay=<ms>` of a test route: a whole number of milliseconds up to 5 s, `never` (infinity: the data never arrives),
 * else the route's default.
 */
export function testDelayMs(requested: unknown, fallbackMs: number): number {
  if (requested === 'never') return Number.POSITIVE_INFINITY
  const delayMs = Number(requested)
  return Number.isInteger(delayMs) && delayMs >= 0 && delayMs <= 5000 ? delayMs : fallbackMs
}

/** The site's public images (client/public/images/, served at /images/), whatever they are, with their pixel sizes
 * read by sharp (loaded here, on the first request, as the optimizer loads it). */
export async function publicImages(): Promise<PageImage[]> {
  const folder = path.join(projectRoot, 'client', 'public', 'images')
  const names = (await readdir(folder)).filter((name) => /\.(jpe?g|png|webp|avif)$/.test(name)).sort()
  const { default: sharp } = await import('sharp')
  return Promise.all(
    names.map(async (name) => {
      const { width, height } = await sharp(path.join(folder, name)).metadata()
      return { src: `/images/${name}`, width, height, alt: `The public image ${name}.` }
    }),
  )
}
