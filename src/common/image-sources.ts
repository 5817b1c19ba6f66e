import { allowedWidths, images } from '../../config/images.ts'

/**
 * How wide an image is drawn: its `sizes` attribute, and the narrowest and widest it is drawn in CSS pixels, so that
 * `srcset` offers only the widths a browser can pick.
 */
export interface ImageSlot {
  sizes: string
  minCssPx: number
  maxCssPx: number
}

/** The smallest viewport Courier lays out for (CSS px): the narrowest phones in use. */
const smallestViewportPx = 320
/** The densest screens in use draw 3 device pixels per CSS pixel (denser ones are rare, and gain nothing visible). */
const maxDevicePixelRatio = 3

/**
 * An image as wide as the content column: `.site` in global.css is at most 48rem (768 px) with 1.25rem (20 px) of
 * padding each side.
 */
export const contentColumn: ImageSlot = {
  sizes: '(min-width: 768px) 728px, calc(100vw - 40px)',
  minCssPx: smallestViewportPx - 40,
  maxCssPx: 728,
}

/** An image as wide as the viewport. */
export const fullWidth: ImageSlot = { sizes: '100vw', minCssPx: smallestViewportPx, maxCssPx: 3840 }

/** A `q` the optimizer accepts (config/images.ts `qualities`; any other is a 400). */
export type ImageQuality = (typeof images.qualities)[number]

/** The optimizer's URL for one width. */
export function optimizedUrl(src: string, width: number, quality?: ImageQuality): string {
  return `/_next/image?url=${encodeURIComponent(src)}&w=${width}${quality ? `&q=${quality}` : ''}`
}

export interface ImageSources {
  src: string
  srcSet: string
  sizes: string
}

/** The first allowed width at or above `px`; the largest when none is. */
function widthCovering(px: number): number {
  return allowedWidths.find((width) => width >= px) ?? allowedWidths[allowedWidths.length - 1]!
}

/**
 * `src`, `srcSet` (w descriptors) and `sizes` for an image `intrinsicWidth` pixels wide drawn in `slot`. The widths
 * run from the one a browser needs for the narrowest slot at 1x to the one for the widest at 3x, and stop at the
 * first that covers the source: the optimizer never enlarges, so larger ones would be the same bytes. A smaller width
 * no browser would pick is left out (it would only lengthen the document and the preload).
 */
export function imageSources(
  src: string,
  intrinsicWidth: number,
  slot: ImageSlot,
  quality?: ImageQuality,
): ImageSources {
  const cover = widthCovering(intrinsicWidth)
  const smallest = Math.min(widthCovering(slot.minCssPx), cover)
  const largest = Math.min(widthCovering(slot.maxCssPx * maxDevicePixelRatio), cover)
  const widths = allowedWidths.filter((width) => width >= smallest && width <= largest)
  return {
    src: optimizedUrl(src, largest, quality),
    srcSet: widths.map((width) => `${optimizedUrl(src, width, quality)} ${width}w`).join(', '),
    sizes: slot.sizes,
  }
}
