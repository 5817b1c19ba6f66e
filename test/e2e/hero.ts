/**
 * The image with priority of the test build's images page (`/__test/images?hero`, test/site/): the first of the
 * site's public images, above the list, eager and preloaded with the shell. What its `srcset` must hold comes from the
 * image's own width and the content column, not from any page of the example.
 */
import { images } from '../../config/images.ts'
import { contentColumn } from '../../src/common/image-sources.ts'

export const heroPage = '/__test/images?hero'
export const heroSelector = 'main img.hero'

const allowedWidths = [...images.imageSizes, ...images.deviceSizes].sort((a, b) => a - b)
/** The densest screens the site serves images for: 3x (src/common/image-sources.ts). */
const densestScreen = 3

const covering = (px: number) => allowedWidths.find((width) => width >= px) ?? allowedWidths[allowedWidths.length - 1]!

/** From the narrowest column at 1x to the widest at 3x, never past the first width that covers the source. */
export function heroWidths(intrinsicWidth: number): number[] {
  const cover = covering(intrinsicWidth)
  const smallest = Math.min(covering(contentColumn.minCssPx), cover)
  const largest = Math.min(covering(contentColumn.maxCssPx * densestScreen), cover)
  return allowedWidths.filter((width) => width >= smallest && width <= largest)
}

/** The optimizer requests of one source image, by the `url` parameter they carry. */
export function isRequestOf(requestUrl: string, src: string): boolean {
  return new URL(requestUrl).searchParams.get('url') === src
}
