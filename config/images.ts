/**
 * Image widths and cache lifetime. Source: product spec section 9; DESIGN.md section 8.
 * Shared by the optimizer route, GET /api/image-widths and the client's Image component.
 */
export const images = Object.freeze({
  /** Widths for full-bleed images, one per common device width. */
  deviceSizes: Object.freeze([640, 750, 828, 1080, 1200, 1920, 2048, 3840]),
  /** Widths for small images (icons, avatars, thumbnails). */
  imageSizes: Object.freeze([16, 32, 48, 64, 96, 128, 256, 384]),
  /** Seconds an optimized image is cached at the least, whatever the source says. */
  minimumCacheTTL: 60,
})
