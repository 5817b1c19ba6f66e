import type { OutputFormat } from '../../config/images.ts'
import type { SourceFormat } from './sniff.ts'

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
 * Which of the two modern formats `Accept` names, with a non-zero quality. Only an explicit listing counts, as in
 * Next.js: the wildcards (`image/*`, the any-type range) are sent by browsers that decode neither (Safari 12 sends
 * both). The cache key holds this pair, not the output format, so a hit needs no look at the source: at most four
 * variants per image and width.
 */
export interface AcceptedFormats {
  readonly avif: boolean
  readonly webp: boolean
}

export function acceptedFormats(accept: string | undefined): AcceptedFormats {
  return { avif: accept ? accepts(accept, 'image/avif') : false, webp: accept ? accepts(accept, 'image/webp') : false }
}

/**
 * Whether a client that accepts `accepted` decodes `format`: JPEG, PNG and GIF always, WebP and AVIF only when named.
 */
export function isDecodable(format: Exclude<SourceFormat, 'svg'>, accepted: AcceptedFormats): boolean {
  if (format === 'avif') return accepted.avif
  if (format === 'webp') return accepted.webp
  return true
}

/**
 * The format a still image is written in: AVIF, then WebP when accepted; else the source's own when every browser
 * decodes it (JPEG, PNG, GIF); else (a WebP or AVIF source for a browser that cannot decode it) JPEG, or PNG when the
 * source has an alpha channel, so transparency survives.
 */
export function chooseFormat(
  accepted: AcceptedFormats,
  source: Exclude<SourceFormat, 'svg'>,
  hasAlpha: boolean,
): OutputFormat {
  if (accepted.avif) return 'avif'
  if (accepted.webp) return 'webp'
  if (isDecodable(source, accepted)) return source
  return hasAlpha ? 'png' : 'jpeg'
}

/** The format a still, opaque `source` is written in for a request's `Accept` (see chooseFormat). */
export function negotiateFormat(accept: string | undefined, source: Exclude<SourceFormat, 'svg'>): OutputFormat {
  return chooseFormat(acceptedFormats(accept), source, false)
}
