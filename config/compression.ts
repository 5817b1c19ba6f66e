/**
 * How Courier compresses what it sends (README "Compression"). Ours: the spec names no numbers here.
 */
export const compression = Object.freeze({
  /**
   * Bodies smaller than this go as they are: below about 1 kB the gain is less than one TCP segment's worth, and the
   * compressor's own framing (gzip: 18 bytes) eats a good part of it (the threshold @fastify/compress uses too).
   */
  minBytes: 1024,
  /**
   * Per request (dynamic page data, JSON errors, streamed documents): brotli 4 and gzip 6 compress a 10 kB page in a
   * fraction of a millisecond, within a few per cent of their best ratio at small sizes (the levels CDNs use on the fly).
   */
  brotliQualityPerRequest: 4,
  gzipLevelPerRequest: 6,
  /** Once (built assets at build time, kept answers on first use): the best each format does. */
  brotliQualityOnce: 11,
  gzipLevelOnce: 9,
  /**
   * Built assets are compressed once, at build time, from this size: no request pays for it, so a small chunk is worth
   * its few hundred bytes saved (a 715 B page chunk is 420 B in brotli) even where they fit one TCP segment anyway:
   * a phone on a metered plan pays for bytes, not segments. Below it, the coding's framing eats the gain.
   */
  precompressMinBytes: 256,
  /** Media types worth compressing; images and fonts (woff2 is compressed already) are not among them. */
  compressibleType: /^(?:text\/|application\/(?:json|javascript|xml|manifest\+json)|image\/svg\+xml)/,
  /** Built files compressed at build time, by extension. */
  precompressedExtensions: ['.js', '.mjs', '.css', '.svg', '.json', '.html', '.txt', '.xml'],
})
