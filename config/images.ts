/**
 * Image widths and cache lifetime. docs/images.md says how each is used.
 * Shared by the optimizer route, GET /api/image-widths and the client's Image component.
 */
export const images = Object.freeze({
  /** Widths for full-bleed images, one per common device width. */
  deviceSizes: Object.freeze([640, 750, 828, 1080, 1200, 1920, 2048, 3840]),
  /** Widths for small images (icons, avatars, thumbnails). */
  imageSizes: Object.freeze([16, 32, 48, 64, 96, 128, 256, 384]),
  /**
   * The only `q` values the optimizer accepts (any other is a 400): the qualities the site's own components ask for.
   * The `Image` component never sets one, so the optimizer's default (75) is the whole list. Every other quality
   * would be one more cached variant of every image at every width, costing a full transform each, that no page of
   * the site ever requests: a free way to fill the queue and evict real entries. Add a value here when a component
   * needs it (the `Image` component's `quality` prop only takes these). Next.js 16 makes the same choice
   * (`images.qualities`, default `[75]`).
   */
  qualities: Object.freeze([75] as const),
  /** Seconds an optimized image is cached at the least, whatever the source says. */
  minimumCacheTTL: 60,
})

/**
 * Every width the optimizer accepts, smallest first: the two lists above, once. The optimizer validates `w` against
 * it (plugins/image.ts) and the Image component picks its `srcset` widths from it (src/common/image-sources.ts).
 */
export const allowedWidths: readonly number[] = Object.freeze(
  [...new Set([...images.imageSizes, ...images.deviceSizes])].sort((a, b) => a - b),
)

/**
 * The optimizer's limits (GET /_next/image). Server-only numbers; plain data like the rest of this file. Each number
 * says why it is what it is.
 */
export const imageOptimizer = Object.freeze({
  /** Longest `url` accepted: the same bound Next.js uses, far above any real image path. */
  maxUrlLength: 3072,
  /** Quality when `q` is absent: a common default for JPEG/WebP that keeps photographs clean at a third the bytes. Must
   * be one of `images.qualities` (checked when the optimizer registers). */
  defaultQuality: 75,
  /**
   * Most pixels a source may declare (width x height). 50 megapixels covers a full-frame camera's original. Decoding
   * streams (`sequentialRead`), so a source within the limit costs a window of rows, not its whole bitmap; anything
   * above (a tiny PNG declaring 14000x14000 = 196 Mpx) fails from the header alone, before any pixel is decoded.
   */
  maxInputPixels: 50_000_000,
  /**
   * Most pixels an optimized image may have: 3840 x 2560, a 3:2 landscape photograph at the widest width, served
   * whole. Encoders hold their whole output in memory (AVIF about 20 bytes a pixel here, WebP and JPEG 5-6), so this,
   * not the input limit, sets a transform's memory: a square or tall source asked at w=3840 comes back narrower
   * (never wider than `w`), at most this many pixels. See docs/images.md "Memory".
   */
  maxOutputPixels: 3840 * 2560,
  /** libvips threads per image: one, so N images in flight use at most N of the machine's cores. */
  sharpConcurrency: 1,
  /** Transforms at once (N): one per core of the 2-core target machine; more only queue inside libvips. With the
   * output cap, N sets the optimizer's peak memory (docs/images.md "Memory"). */
  maxConcurrentTransforms: 2,
  /** Requests waiting for a transform slot before new ones get 429 (busy): a burst of cold images, not a flood. */
  maxQueuedTransforms: 64,
  /**
   * Transforms one client (its IP as Fastify's `request.ip` sees it, so set TRUST_PROXY behind a proxy) may have
   * running and waiting at once; beyond it that client gets the busy answer (429) while others still queue. 16: a cold
   * visit to the busiest page (/gallery, every image at the width one screen picks) needs fewer; a quarter of the
   * queue, so one client cannot fill it. Waiters are served client by client, so a second client waits for at most one
   * transform of each other client, not for a whole flood.
   */
  maxTransformsPerClient: 16,
  /**
   * `Retry-After` of a request refused because the queue is full (429): about the time two transform slots take to
   * work through a full queue of small images; a client that honours it comes back once the burst has drained.
   */
  busyRetryAfterS: 2,
  /** Seconds one transform may take (sharp's timeout): a 3840 px AVIF takes ~1-2 s on one core; 4x margin. */
  transformTimeoutS: 8,
  /** AVIF encoder effort 0..9: 3 keeps cold transforms around a second while staying well below WebP in bytes. */
  avifEffort: 3,
  /** Remote sources: at most this many redirects, each re-checked against the allow-list and the address rules. */
  maxRedirects: 3,
  /** Remote sources: whole fetch (redirects and body included) must end within this, else 504. */
  fetchTimeoutMs: 7_000,
  /** Remote sources: largest body read (10 MiB), checked while streaming, not trusted from Content-Length. */
  maxSourceBytes: 10 * 1024 * 1024,
  /**
   * Remote origins the optimizer may fetch from, e.g. `https://images.example.com` (scheme, host, port exactly).
   * Empty: only local images from client/public.
   */
  remoteOrigins: Object.freeze([] as string[]),
  /** Disk cache cap (256 MiB): every width of every image on the site, in three formats, fits many times over. */
  cacheMaxBytes: 256 * 1024 * 1024,
  /** Cached entries up to this size are also kept in memory, so a hit is one write of a Buffer (no file read). */
  memoryEntryMaxBytes: 512 * 1024,
  /** Memory for those hot entries in total (32 MiB); beyond it hits are streamed from disk. */
  memoryMaxBytes: 32 * 1024 * 1024,
})

/** The optimizer's limits as options take them: any number where the config has one. */
export type ImageOptimizerLimits = {
  readonly [Key in keyof typeof imageOptimizer]: (typeof imageOptimizer)[Key] extends number
    ? number
    : readonly string[]
}

/** Where the images of the content are served (docs/content.md "Images of the content"): a guide draws
 * `![alt](/content/images/<file>)`, and the client draws it through the optimizer. Shared with the browser. */
export const contentImagePrefix = '/content/images/'

/** What the optimizer writes: the formats it negotiates (src/images/negotiate.ts) and the metrics label them by. */
export type OutputFormat = 'avif' | 'webp' | 'jpeg' | 'png' | 'gif' | 'svg'
