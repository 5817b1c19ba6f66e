import { images } from '../../config/images.ts'

/** Every width the optimizer accepts, smallest first (config/images.ts, the same lists the server validates with). */
const allowedWidths: readonly number[] = [...new Set([...images.imageSizes, ...images.deviceSizes])].sort((a, b) => a - b)

/**
 * `sizes` of an image as wide as the content column: `.site` in global.css is at most 48rem (768 px) with 1.25rem
 * (20 px) of padding each side.
 */
export const columnSizes = '(min-width: 768px) 728px, calc(100vw - 40px)'

/** The optimizer's URL for one width. */
export function optimizedUrl(src: string, width: number, quality?: number): string {
  return `/_next/image?url=${encodeURIComponent(src)}&w=${width}${quality ? `&q=${quality}` : ''}`
}

export interface ImageSources {
  src: string
  srcSet: string
  sizes: string
}

/**
 * `src`, `srcSet` (w descriptors) and `sizes` for an image `intrinsicWidth` pixels wide. Widths above the source's
 * stop at the first allowed one that covers it: the optimizer never enlarges, so larger ones would be the same bytes.
 */
export function imageSources(src: string, intrinsicWidth: number, sizes: string, quality?: number): ImageSources {
  const cover = allowedWidths.find((width) => width >= intrinsicWidth) ?? allowedWidths[allowedWidths.length - 1]!
  const widths = allowedWidths.filter((width) => width <= cover)
  return {
    src: optimizedUrl(src, cover, quality),
    srcSet: widths.map((width) => `${optimizedUrl(src, width, quality)} ${width}w`).join(', '),
    sizes,
  }
}

export interface ImageProps {
  /** A path in client/public, e.g. `/images/dunes.jpg`. */
  src: string
  alt: string
  /** The source's pixel size: reserves the box before the bytes arrive (no layout shift). */
  width: number
  height: number
  /** How wide the image is drawn, as the `sizes` attribute says it. Default: the full viewport. */
  sizes?: string
  quality?: number
  /** For the image that dominates the first view: loaded eagerly, at high priority (also preloaded in the head). */
  priority?: boolean
  className?: string
}

/** An `<img>` through the optimizer: responsive widths, always width and height, lazy unless it has priority. */
export function Image({ src, alt, width, height, sizes = '100vw', quality, priority = false, className }: ImageProps) {
  const sources = imageSources(src, width, sizes, quality)
  return (
    <img
      src={sources.src}
      srcSet={sources.srcSet}
      sizes={sources.sizes}
      alt={alt}
      width={width}
      height={height}
      loading={priority ? 'eager' : 'lazy'}
      decoding={priority ? 'sync' : 'async'}
      {...(priority ? { fetchPriority: 'high' as const } : {})}
      className={className ? `image ${className}` : 'image'}
    />
  )
}
