import { images } from '../config/images.ts'

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
