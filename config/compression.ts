/**
 * How Courier compresses what it sends (docs/compression.md).
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
  /**
   * A streamed gzip piece is compressed with up to this many of the bytes sent before it as its dictionary: it refers
   * back to them as one compression of the whole document would (the body of `/status` takes 667 B instead of 764
   * with its opening behind it). The dictionary costs about 1 µs per kB per piece, so it is capped at the reach
   * where a document's repeats mostly are (class names, the head's words), not deflate's full 32 kB.
   */
  pieceDictionaryBytes: 8 * 1024,
  /**
   * Streamed documents' openings (the HTML before the app: the head, with the inlined stylesheet, three quarters of
   * `/status`) kept compressed, per document template: most pages open alike for every request but for the nonce, so
   * a gzip response compresses only what React renders (src/render/kept-openings.ts). A page whose head differs per
   * request (a title from its data) takes one entry per distinct head; past this many, the least recently used goes.
   */
  keptOpenings: 64,
  /** Media types worth compressing; images and fonts (woff2 is compressed already) are not among them. */
  compressibleType: /^(?:text\/|application\/(?:json|javascript|xml|manifest\+json)|image\/svg\+xml)/,
  /** Built files compressed at build time, by extension. */
  precompressedExtensions: ['.js', '.mjs', '.css', '.svg', '.json', '.html', '.txt', '.xml'],
})
