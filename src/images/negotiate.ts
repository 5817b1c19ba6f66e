import type { SourceFormat } from './sniff.ts'

/** What the optimizer writes. */
export type OutputFormat = 'avif' | 'webp' | 'jpeg' | 'png' | 'gif' | 'svg'

export const contentTypes: Readonly<Record<OutputFormat, string>> = Object.freeze({
  avif: 'image/avif',
  webp: 'image/webp',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  svg: 'image/svg+xml',
})

export const extensions: Readonly<Record<OutputFormat, string>> = Object.freeze({
  avif: 'avif',
  webp: 'webp',
  jpeg: 'jpg',
  png: 'png',
  gif: 'gif',
  svg: 'svg',
})

/** True when `accept` lists `type` with a non-zero quality. */
function accepts(accept: string, type: string): boolean {
  for (const part of accept.split(',')) {
    const [media, ...parameters] = part.trim().toLowerCase().split(';')
    if (media?.trim() !== type) continue
    const quality = parameters.map((parameter) => parameter.trim()).find((parameter) => parameter.startsWith('q='))
    return quality === undefined || Number(quality.slice(2)) > 0
  }
  return false
}

/**
 * The format a response is written in, from the request's `Accept`: AVIF, then WebP, else the source's own. The
 * choice only depends on whether each of the two types is listed, so the cache holds at most three variants.
 */
export function negotiateFormat(accept: string | undefined, source: Exclude<SourceFormat, 'svg'>): OutputFormat {
  if (accept) {
    if (accepts(accept, 'image/avif')) return 'avif'
    if (accepts(accept, 'image/webp')) return 'webp'
  }
  return source
}
