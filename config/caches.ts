/**
 * The bounds of every cache Courier keeps in memory: those of the bytes it sends (docs/compression.md "One seam for
 * the bytes on the wire") and parsed content (docs/content.md). Each is an object `buildApp` makes
 * (src/bounded-cache.ts): bytes first, then entries; past either, the least recently used entry goes. An entry larger
 * than a cache's bytes is not kept at all.
 */
export interface CacheBounds {
  /** The most bytes the entries may hold together (an estimate of what each holds: its strings and buffers). */
  readonly maxBytes: number
  /** The most entries, whatever their size. */
  readonly maxEntries: number
}

export const caches = Object.freeze({
  /**
   * Parsed `Accept-Encoding` headers: browsers send a handful of distinct ones, so 64 holds them all; odd headers
   * from scripts cannot grow it. 64 kB: 64 headers of a few hundred bytes each and their weights.
   */
  acceptEncoding: Object.freeze({ maxEntries: 64, maxBytes: 64 * 1024 }),
  /**
   * Streamed documents' openings kept compressed (src/delivery/kept-openings.ts): one per distinct head per template.
   * A page whose head differs per request (a title from its data) takes one entry per distinct head. An opening is
   * about 5 kB, its compressed parts about 2 kB more: 64 of them, well under 1 MB.
   */
  keptOpenings: Object.freeze({ maxEntries: 64, maxBytes: 1024 * 1024 }),
  /**
   * The plain error answers (src/error-format.ts), built once per status, code and format: a few dozen at most (the
   * coded errors times two formats); 256 leave room, 256 kB bound them (each is under 1 kB).
   */
  plainErrorAnswers: Object.freeze({ maxEntries: 256, maxBytes: 256 * 1024 }),
  /**
   * Content files parsed, each kept with the text it came from (src/content/content-source.ts): a file read again
   * unchanged is not parsed again. Counted by the texts' bytes (the trees take a few times as much): 8 MiB and 1,000
   * files, far above the example's folder of a few dozen files of a few kB.
   */
  parsedContent: Object.freeze({ maxEntries: 1_000, maxBytes: 8 * 1024 * 1024 }),
  /**
   * What each version of a content image says of itself (src/content/image-versions.ts): its ETag (a hash of its
   * bytes) and pixel size, kept by file, under the version `fstat` gives (device, inode, size, times), so a revalidation
   * or a HEAD reads nothing but the opening, and a page's sizes are read once per version. One entry per image file of
   * CONTENT_DIR: a name, a version and a tag, under 300 bytes; 2,000 images in 1 MiB, an image past them read again.
   */
  contentImageVersions: Object.freeze({ maxEntries: 2_000, maxBytes: 1024 * 1024 }),
  /**
   * Page instances whose last load failed, kept for their back-off (src/pages/retry-backoff.ts, config/content.ts
   * retryBackoffMs): the failure of a first load is given again to the requests of the next 5 s without a loader run.
   * One per failing instance (its key and the error, under 2 kB with its stack); a flood of made-up paths that all
   * fail pushes out the oldest, which may then be tried again early. 1,000 entries, 2 MiB.
   */
  failedLoads: Object.freeze({ maxEntries: 1_000, maxBytes: 2 * 1024 * 1024 }),
  /**
   * Error documents without a digest, kept by status (src/render/document-cache.ts): at most one per 4xx and 5xx
   * status. Unlike the others, once full this table keeps what it has and streams the rest (a document is a render,
   * not a lookup, and the statuses that hit it first are the ones to keep).
   */
  errorDocuments: Object.freeze({ maxEntries: 200, maxBytes: 8 * 1024 * 1024 }),
  /**
   * Rate-limit counts per client kept by this instance (src/shared-state/local-rate-limit.ts): every count without
   * Redis, and the fall-back while Redis is down. 5,000 clients, @fastify/rate-limit's own default for its local store;
   * a count is its key (an address) and two numbers, under 200 bytes: 1 MiB bounds them. A client pushed out by a flood
   * of other addresses starts a fresh count: a flood is still limited, per address.
   */
  rateLimitClients: Object.freeze({ maxEntries: 5_000, maxBytes: 1024 * 1024 }),
} satisfies Record<string, CacheBounds>)
