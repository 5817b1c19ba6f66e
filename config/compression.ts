import type { ContentCoding } from '../src/compression/negotiate.ts'

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
   * fraction of a millisecond, within a few per cent of their best ratio at small sizes (the levels CDNs use on the
   * fly).
   */
  brotliQualityPerRequest: 4,
  gzipLevelPerRequest: 6,
  /** zstd 3, its own default level: the CPU of gzip 6 on a page, within 3 % of its bytes (`npm run bench:codings`). */
  zstdLevelPerRequest: 3,
  /** Once (built assets at build time, kept answers on first use): the best each format does. */
  brotliQualityOnce: 11,
  gzipLevelOnce: 9,
  /**
   * zstd 19, the best level without `--ultra`: levels 20-22 only widen the window, which nothing Courier sends (tens
   * of kB) can use, and a window above 8 MiB is one browsers refuse to decode.
   */
  zstdLevelOnce: 19,
  /**
   * A streamed zstd response keeps one compressor for its life: its window (64 KiB, a document's reach, as brotli's)
   * and its match tables (32 K entries each) bound what it holds. Left to choose for a stream of unknown size, zstd 3
   * takes a 2 MiB window and tables of 128 K and 64 K entries: after 1 MB of text a stream held about 2.2 MiB, bounded
   * about 1 MiB (input and output buffers included). `npm run bench:codings` measures it after a 20 kB page.
   */
  zstdStreamWindowLog: 16,
  zstdStreamHashLog: 15,
  zstdStreamChainLog: 15,
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
   * The server's order among codings a client weighs alike (every browser: `gzip, deflate, br, zstd`), per kind of
   * answer, read from `npm run bench:codings` (docs/benchmarks.md "Content codings", 2026-11-25). The bytes are the
   * same from run to run; the CPU moved by half between runs on the shared 2-core machine, so it decides only where
   * it differs several times over. A client that weighs one coding above the others gets it, whatever this says.
   */
  codingPreference: Object.freeze({
    /**
     * Compressed once, at build time: only bytes count. The entry chunk (227 kB): brotli 11 60,836 B, zstd 19
     * 63,792 B, gzip 9 70,502 B; the stylesheet and the larger page chunks in the same order (below 1 kB, zstd and
     * gzip within a few bytes of each other).
     */
    builtAsset: ['br', 'zstd', 'gzip'],
    /** Compressed once per coding: only bytes count. `/`'s data: brotli 11 865 B, gzip 9 1,078 B, zstd 19 1,083 B. */
    pageData: ['br', 'gzip', 'zstd'],
    /**
     * Compressed per request (plugins/compression.ts), at about the same CPU for the three (50-185 µs for a 12 kB
     * page across runs, no coding steadily ahead): zstd 3 sends the most, on every body measured (the HTML of `/`,
     * its nonce changing the last bytes: brotli 4 about 4,208 B, gzip 6 4,271 B, zstd 4,399 B; the page sitemap:
     * 292, 308, 321 B).
     */
    perRequest: ['br', 'gzip', 'zstd'],
    /**
     * A kept document (`/`): gzip parts around the nonce cost a CRC per response (4,432 B, 20-55 µs); zstd frames a
     * copy (5,472 B, 8-14 µs: frames cannot refer back across the nonce); brotli a compression per response (4,206 B,
     * 135-400 µs), which would halve the throughput of static pages (docs/compression.md). gzip sends 1 kB less than
     * zstd for a few µs more; brotli comes last for its CPU.
     */
    keptDocument: ['gzip', 'zstd', 'br'],
    /**
     * A streamed document: gzip in pieces keeps no compressor per response (no thread-pool hop per flush); brotli and
     * zstd each keep one. `/status`: gzip 3,155 B, brotli 4 2,880 B, zstd 3 about 3,125 B, the CPU of the coding lost
     * in that of the render (1-2 ms per request for each): brotli before zstd for its bytes.
     */
    streamedDocument: ['gzip', 'br', 'zstd'],
  } satisfies Record<string, readonly ContentCoding[]>),
  /** Media types worth compressing; images and fonts (woff2 is compressed already) are not among them. */
  compressibleType: /^(?:text\/|application\/(?:json|javascript|xml|manifest\+json)|image\/svg\+xml)/,
  /** Built files compressed at build time, by extension. */
  precompressedExtensions: ['.js', '.mjs', '.css', '.svg', '.json', '.html', '.txt', '.xml'],
  /**
   * The media type of each, as @fastify/static gives the file itself (its `mime` table, `charset=utf-8` for
   * JavaScript, JSON and text): a built file's `.zst` goes with the type its `.br` and `.gz` go with
   * (src/delivery/built-assets.ts).
   */
  precompressedTypes: {
    '.js': 'application/javascript; charset=utf-8',
    '.mjs': 'application/javascript; charset=utf-8',
    '.css': 'text/css; charset=utf-8',
    '.svg': 'image/svg+xml',
    '.json': 'application/json; charset=utf-8',
    '.html': 'text/html; charset=utf-8',
    '.txt': 'text/plain; charset=utf-8',
    '.xml': 'application/xml',
  } as Readonly<Record<string, string>>,
})
