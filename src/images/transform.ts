import type { Metadata, Sharp, SharpOptions } from 'sharp'
import { errors } from '../errors.ts'
import type { ImageOptimizerLimits } from '../../config/images.ts'
import { chooseFormat, isDecodable, type AcceptedFormats } from './negotiate.ts'
import type { OutputFormat } from '../../config/images.ts'
import { isAnimatedImage, type SourceFormat } from './sniff.ts'

export interface TransformRequest {
  bytes: Buffer
  source: Exclude<SourceFormat, 'svg'>
  /** What the client decodes besides JPEG, PNG and GIF: the output format follows from it and the source. */
  accepted: AcceptedFormats
  width: number
  quality: number
}

export interface TransformResult {
  bytes: Buffer
  format: OutputFormat
}

type TransformLimits = Pick<
  ImageOptimizerLimits,
  'maxInputPixels' | 'maxOutputPixels' | 'transformTimeoutS' | 'avifEffort'
>

type SharpModule = (typeof import('sharp'))['default']
type SharpFactory = (input: Buffer, options: SharpOptions) => Sharp

let threads = 0
let loaded: SharpModule | undefined
let loading: Promise<SharpFactory> | undefined

function applySettings(sharp: SharpModule): void {
  sharp.concurrency(threads)
  // libvips' operation cache keeps decoded images around for reuse; the disk cache does that job, so memory stays flat.
  sharp.cache(false)
}

/**
 * sharp (libvips) loads on the first transform, not at start-up: loading it is a good share of the cold start, and a
 * server whose images are all in the cache never needs it.
 */
function loadSharp(): Promise<SharpFactory> {
  loading ??= import('sharp').then(({ default: sharp }) => {
    loaded = sharp
    applySettings(sharp)
    return sharp
  })
  return loading
}

/** libvips settings for the whole process, given once when the optimizer registers (applied when sharp loads). */
export function configureSharp(threadsPerImage: number): void {
  threads = threadsPerImage
  if (loaded) applySettings(loaded)
}

function isPixelLimitError(error: unknown): boolean {
  return error instanceof Error && /pixel limit/i.test(error.message)
}

function isTimeoutError(error: unknown): boolean {
  return error instanceof Error && /timeout/i.test(error.message)
}

/**
 * The width to resize to: `width`, never beyond the source's own (after its EXIF rotation), and narrower when the
 * result would have more than `maxOutputPixels` (a square or tall source at a large width), keeping the aspect ratio.
 */
function outputWidth(metadata: Metadata, width: number, maxOutputPixels: number): number {
  const sourceWidth = metadata.width ?? 0
  const sourceHeight = metadata.pageHeight ?? metadata.height ?? 0
  const [across, down] = (metadata.orientation ?? 1) >= 5 ? [sourceHeight, sourceWidth] : [sourceWidth, sourceHeight]
  if (across === 0 || down === 0) return width
  const wanted = Math.min(width, across)
  const pixels = wanted * ((down * wanted) / across)
  return pixels <= maxOutputPixels ? wanted : Math.max(1, Math.floor(wanted * Math.sqrt(maxOutputPixels / pixels)))
}

/**
 * Resizes to `width` (never beyond the source's own width, never beyond the output pixel cap) and encodes in the
 * best format the client decodes. The source's header is read first: a declared size above the pixel limit fails
 * there, before any pixel is decoded. Animated sources (told from their bytes) go unchanged when the client decodes
 * their format (re-encoding every frame is costly and rarely smaller); an animated WebP or AVIF for a client that
 * decodes neither becomes an animated GIF.
 */
export async function transformImage(request: TransformRequest, limits: TransformLimits): Promise<TransformResult> {
  // failOn 'error': corrupt or truncated data stops the transform (a 400), while mere warnings (odd metadata that
  // cameras write) do not; sequentialRead lets libvips stream the decode instead of holding the whole image.
  const inputOptions = { limitInputPixels: limits.maxInputPixels, failOn: 'error', sequentialRead: true } as const
  const sharp = await loadSharp()
  let metadata: Metadata
  try {
    // The header only: no pixel is decoded here, so the declared size can be checked (and reported) before any is.
    metadata = await sharp(request.bytes, { ...inputOptions, limitInputPixels: false }).metadata()
  } catch (error) {
    throw new errors.ImageUnreadable({ cause: error })
  }
  const pixels = (metadata.width ?? 0) * (metadata.height ?? 0)
  if (pixels > limits.maxInputPixels) throw new errors.ImageTooLarge(pixels, limits.maxInputPixels)
  const animated = isAnimatedImage(request.bytes, request.source) || (metadata.pages ?? 1) > 1
  if (animated && isDecodable(request.source, request.accepted)) return { bytes: request.bytes, format: request.source }
  const format = animated ? 'gif' : chooseFormat(request.accepted, request.source, metadata.hasAlpha === true)

  let pipeline = sharp(request.bytes, { ...inputOptions, animated })
    .rotate()
    .resize({ width: outputWidth(metadata, request.width, limits.maxOutputPixels), withoutEnlargement: true })
    .timeout({ seconds: limits.transformTimeoutS })
  switch (format) {
    case 'avif':
      pipeline = pipeline.avif({ quality: request.quality, effort: limits.avifEffort })
      break
    case 'webp':
      pipeline = pipeline.webp({ quality: request.quality })
      break
    case 'jpeg':
      pipeline = pipeline.jpeg({ quality: request.quality, mozjpeg: true })
      break
    case 'png':
      pipeline = pipeline.png({ quality: request.quality, palette: request.quality < 100 })
      break
    case 'gif':
      pipeline = pipeline.gif()
      break
    case 'svg':
      throw new TypeError('SVG is never transformed')
  }
  try {
    return { bytes: await pipeline.toBuffer(), format }
  } catch (error) {
    if (isPixelLimitError(error)) throw new errors.ImageTooLarge(pixels, limits.maxInputPixels)
    if (isTimeoutError(error)) throw new errors.ImageTransformTimeout({ cause: error })
    throw new errors.ImageUnreadable({ cause: error })
  }
}
