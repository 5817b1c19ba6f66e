import { fullWidth, imageSources, type ImageQuality, type ImageSlot } from '../../src/common/image-sources.ts'

export interface ImageProps {
  /** A path in client/public, e.g. `/images/dunes.jpg`. */
  src: string
  alt: string
  /** The source's pixel size: reserves the box before the bytes arrive (no layout shift). */
  width: number
  height: number
  /** How wide the image is drawn (its `sizes`, and the narrowest and widest it gets). Default: the full viewport. */
  slot?: ImageSlot
  /** One of config/images.ts `qualities` (the optimizer refuses any other); absent: the optimizer's default, 75. */
  quality?: ImageQuality
  /**
   * For the image that dominates the first view: loaded eagerly at high priority (React preloads it with the shell).
   */
  priority?: boolean
  className?: string
}

/** An `<img>` through the optimizer: responsive widths, always width and height, lazy unless it has priority. */
export function Image({ src, alt, width, height, slot = fullWidth, quality, priority = false, className }: ImageProps) {
  const sources = imageSources(src, width, slot, quality)
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
