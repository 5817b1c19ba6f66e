import { contentImagePrefix } from './images.ts'

/**
 * Where the example site's content lives and what each file must say (docs/content.md). The content is read at run
 * time by the page loaders (src/content/), never bundled: editing a file and revalidating changes the site without a
 * build or a deploy.
 */
export const contentLayout = Object.freeze({
  /** CONTENT_DIR's default, from the project root. */
  defaultDir: 'content',
  /** One guide per file, `guides/<slug>.md`: the file name is the guide's URL segment. */
  guidesDir: 'guides',
  /** One question of the FAQ per file, `faq/<anchor>.md`: the file name is its anchor on the page. */
  faqDir: 'faq',
  /** A file name (without `.md`) as a URL or an anchor keeps it readable: lower-case words joined by dashes. */
  namePattern: /^[a-z0-9]+(?:-[a-z0-9]+)*$/,
  /** Markdown files larger than this are refused (COURIER_ERR_CONTENT_INVALID): a page's content is prose (the
   * example's guides are 2 KB; 64 KiB is some 10,000 words), and what a file costs grows with it on the event loop
   * too, after the parser's thread: 256 KiB of dense Markdown (the limit before) made 2.9 MB of page data and 66,000
   * elements to render, and held other requests for up to 2.5 s. Next.js warns of page data above 128 kB. */
  maxFileBytes: 64 * 1024,
  /** Front matter larger than this is refused before YAML reads it: it is a few fields (a title, a summary, an
   * order), and it is read on the main thread for every list of guides. */
  maxFrontMatterBytes: 8 * 1024,
  /** Blocks (quotes, list items, indentation) nested deeper than this refuse the file before it is parsed: prose
   * needs a quote in a list in a list, and micromark's time grows with the square of the depth (32 levels of `>` on
   * 1,000 lines of 32 KB took 3 s here). */
  maxNestingDepth: 12,
})

/**
 * Images that belong to the content (docs/content.md "Images of the content"): `CONTENT_DIR/images/<file>`, served at
 * `/content/images/<file>` as they are and through the image optimizer, read at run time like the Markdown.
 */
export const contentImages = Object.freeze({
  /** The folder under CONTENT_DIR. */
  dir: 'images',
  /** The URL they are served at: `<urlPrefix><file>`. */
  urlPrefix: contentImagePrefix,
  /** A file name a URL keeps readable, with a lower-case extension of a format browsers draw (SVG only with
   * IMAGES_ALLOW_SVG, as the optimizer's sources). */
  namePattern: /^[a-z0-9]+(?:[-_.][a-z0-9]+)*\.(?:png|jpg|jpeg|gif|webp|avif|svg)$/,
  /** Each extension's type, sent with `nosniff`: the bytes are never taken for anything else. */
  types: Object.freeze({
    png: 'image/png',
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    gif: 'image/gif',
    webp: 'image/webp',
    avif: 'image/avif',
    svg: 'image/svg+xml',
  } as Record<string, string>),
  /** Revalidated on every use, as pages are: a replaced file is seen at once (its ETag is its bytes'). */
  cacheControl: 'public, max-age=0, must-revalidate',
  /** As the optimizer's answers: an image opened as a document runs nothing (an SVG's scripts included). */
  contentSecurityPolicy: "script-src 'none'; sandbox",
  /** A file is streamed to the client in reads of this many bytes, each within the content's read bounds, one read
   * when the client has taken the last: a slow reader holds about this much of the instance's memory, not the file. */
  streamChunkBytes: 64 * 1024,
  /** A guide's image gets its pixel size from the first bytes of the file only: PNG, GIF, WebP and AVIF say it in
   * their first hundred bytes, a JPEG before its pixels, after its metadata (EXIF, an ICC profile: each segment at most
   * 64 KiB, one or two in a camera's file). */
  headerBytes: 64 * 1024,
  /** ...and when those do not say it (a JPEG with more metadata first), once more from this many. Past that the image
   * is drawn without its size, with a warn line: its header is not read whole to learn it. */
  longHeaderBytes: 1024 * 1024,
})

/**
 * How CONTENT_DIR is read (src/content/content-files.ts, docs/content.md "What a content file may be"): content is
 * untrusted input, like an image to optimize, and the file system under it may stop answering (a network mount).
 */
export const contentReads = Object.freeze({
  /** A listing or a file read that has not finished by then fails the load (a 500 for a first load, the kept version
   * after that): a local disk answers in microseconds, a healthy network file system in milliseconds; the rest is
   * margin for a thread pool queued behind other work (an image burst on a loaded 2-core machine made 2 s too short).
   * */
  readTimeoutMs: 4_000,
  /** A listing or read that waits longer than this for one of the slots below fails without starting: on a machine
   * whose thread pool is busy a first load of many files queues, and a folder that hangs must not gather an endless
   * queue. With the read's own time, below the loader's 10 s. */
  readWaitMs: 5_000,
  /** Listings and reads of content at once. A read stuck in a system call holds one of libuv's 4 threads until the
   * call returns, whatever its time-out did: content never holds more than half of them, so chunks, public files and
   * images are still read while a mount hangs. */
  maxReadsInFlight: 2,
  /** CONTENT_DIR's own real path, resolved for a file's read, serves the reads of this long after it (one call of the
   * thread pool less per file, 6 instead of 7: the index's build reads 10,000 files); a file that seems to lie outside
   * it resolves it again first, so a folder switched by a link is followed at once. */
  rootResolvedForMs: 1_000,
})

/** Markdown is parsed on a thread of its own (src/content/markdown-parser.ts): about 4 ms per KiB of prose here. */
export const markdownParsing = Object.freeze({
  /** A parse that has not finished by then fails the file (COURIER_ERR_CONTENT_INVALID); its thread is ended. The
   * largest file allowed (64 KiB) parses in 0.1-0.4 s here as plain prose, 1.1-1.4 s as dense Markdown (lists, quotes
   * and links in every paragraph) with the other core busy, several times that on a new thread's first parse: the
   * limit is above that and below the loader's 10 s. */
  parseTimeoutMs: 8_000,
  /** The parser thread's heap (MiB): the largest dense file parses within it (the process measured 270-340 MiB RSS
   * while parsing one); a file that needs more fails alone, and the thread ends after `idleMs`. */
  parseHeapMb: 192,
  /** The thread ends after this long without a file to parse, giving its memory back; the next file starts one (and
   * its first parse runs on code not yet optimized: 3-8 times slower than the next ones here). */
  idleMs: 120_000,
  /** A file that failed on a bound (the time or the heap above, which a machine busy at that moment can meet once) is
   * parsed again after this long; a failure of its text (bad front matter, too deep) is kept until the text changes. */
  boundFailureRetryMs: 60_000,
})

/** Regeneration of kept pages (docs/content.md "Freshness"). */
export const regeneration = Object.freeze({
  /** A loader that has not answered by then fails the regeneration (the kept version stays): a hung CMS or disk must
   * not hold a page's regeneration, and the requests waiting on it, for ever. The render time-out's value. */
  loaderTimeoutMs: 10_000,
  /** After a failed regeneration, the next try waits this long: a broken file or a down source is not read again on
   * every request; requests meanwhile get the kept version. Next.js retries on the next request; Courier backs off. */
  retryBackoffMs: 5_000,
  /** Regenerations an instance runs at once (more wait their turn): a revalidation that names every guide marks them,
   * and each regenerates when next asked for, a few at a time, never all at once against the reads visitors need. */
  maxAtOnce: 4,
  /** `stale-while-revalidate` told to a CDN: how long past `s-maxage` it may serve the kept version while it asks
   * again (a day, bounded: Next.js says a year by default). */
  cdnStaleWhileRevalidateS: 86_400,
})

/** `POST /api/revalidate` (plugins/revalidate.ts, docs/content.md). */
export const revalidation = Object.freeze({
  path: '/api/revalidate',
  /** A call names a few pages or tags (a CMS's webhook for one edit); larger bodies get 413 before parsing. */
  bodyLimitBytes: 16 * 1024,
  /** Paths or tags one call may name: each marks the pages it names. */
  maxItems: 100,
  /** A path or tag's length at most. */
  maxItemLength: 512,
  /** Calls one client may make per window, like the client reports' limit; more get 429. A webhook per edit stays
   * far below; a loop or a token-guessing client does not. */
  maxPerWindow: 30,
  windowMs: 60_000,
  /** REVALIDATE_TOKEN's shortest length: a bearer token must not be guessable. 32 printable characters (what
   * `openssl rand -base64 32` prints is 44) are far beyond any guessing rate; 16 was allowed before. */
  minTokenLength: 32,
  /** ...and its fewest different characters: `aaaa...` of any length is not a secret. */
  minTokenDistinct: 8,
  /** Failed calls (no token, or another) one client may make per window before it gets 429, whatever it sends then,
   * the right token included: a budget of their own, counted before the token is compared, so a guesser is stopped
   * after a handful of tries and cannot use up the budget of the token's holder (`maxPerWindow`). */
  maxFailuresPerWindow: 10,
  /** With REDIS_URL, the last revalidations kept in Redis, numbered: an instance that missed a message (a dropped
   * subscription, a pause) reads what it missed from here. Beyond it, it regenerates every kept page. */
  logLength: 1_000,
  /** ...and each instance checks the newest number this often: a missed message leaves a page stale at most this long.
   * The check is also its heartbeat. */
  versionCheckMs: 1_000,
  /** An instance whose last heartbeat is older than this is no longer counted alive (3 missed checks). */
  heartbeatTtlMs: 3_000,
  /** The instance that takes a call waits at most this long for every instance alive to say it applied it; the 200
   * says how many did (`acknowledged`) out of how many are alive (`alive`). */
  ackWaitMs: 1_000,
  /** ...polling the count this often. */
  ackPollMs: 10,
  /** Who applied a revalidation is kept this long. */
  ackTtlMs: 60_000,
  /** The revalidation number, log and epoch live this long past the last instance's last check (renewed every
   * second while any instance runs): a fleet gone for a month leaves nothing behind. */
  stateTtlMs: 30 * 24 * 60 * 60 * 1000,
  /** Without Redis, under WEB_CONCURRENCY: how long a worker waits for the primary to say every worker has been told
   * before it answers with itself alone (the primary answers in well under a millisecond). */
  clusterAckTimeoutMs: 1_000,
})

/** Kept pages shared by the fleet through Redis (REDIS_URL; docs/content.md "Across the fleet"). */
export const sharedPages = Object.freeze({
  /** The lock an instance takes before it runs a page's loader (`SET NX PX`): above the loader time-out, so a holder
   * that crashed frees it by itself and one that is merely slow keeps it. */
  lockMs: regeneration.loaderTimeoutMs + 2_000,
  /** An instance that finds the lock taken polls Redis this often for the holder's version: a revalidated page's
   * waiting requests meet at most this much more than the loader's own time. */
  waitPollMs: 15,
  /** A page version stays in Redis this long after it was written, for instances that have not loaded it yet: two
   * days, like the images (a page still asked for is written again at its next regeneration). */
  retentionMs: 2 * 24 * 60 * 60 * 1000,
  /** A shared version stamped later than this instance's clock by more than this was not made by an instance of the
   * fleet (their clocks agree within milliseconds under NTP; 5 s is a clock that stepped, not a loader): it is ignored
   * and made again, so a version planted in Redis with a future time cannot stay fresh forever. */
  clockSkewMs: 5_000,
})

/**
 * The index of the guides (src/content/content-index.ts, docs/content.md "How many pages"): each guide's front matter
 * read once per version of its text, so a listing, a pager and the sitemap read no file.
 */
export const contentIndex = Object.freeze({
  /** Guides per listing page (`/guides`, `/guides/page/<n>`, the home page's list): a listing's document and page data
   * stay the same size whatever the number of guides. 30 summaries are a screenful or two to scan and some 10 kB of
   * page data, which the document carries twice (HTML and state): far below the 100 kB a listing may weigh. */
  listingPageSize: 30,
  /** The index's reads (and a check's `stat`s) sent at once to its thread (src/content/index-reads.ts), which makes
   * them one after the other: enough that the thread never waits for the next job. They take none of the pages' read
   * slots (`contentReads.maxReadsInFlight`). */
  readsAtOnce: 16,
  /** The index's thread ends after this long without a job, giving its memory back; the next check starts one. */
  threadIdleMs: 120_000,
  /** A check of a folder with fewer guides than this reads them on the event loop, through the pages' read slots, as
   * a page's own reads go: starting the thread (~25 ms before its first read, ~18 MiB while it lives) costs more than
   * it saves below about 170 guides on this machine, and it added ~25 ms to the example's cold start. */
  threadFromGuides: 200,
  /** An index read this long ago is checked again (the folder listed, every file `stat`ed, read again where that
   * changed, front matter parsed only where the text did) on the next read of it, in the background: the reader gets
   * the index as it is. An edit without a revalidation reaches the listings within this and the pages' own
   * `revalidate` (60 s); a revalidation checks it again first, and its pages wait for that. */
  recheckAfterMs: 30_000,
  /** Building the index gives the event loop back at least this often (a `setImmediate` between files): requests are
   * served while 10,000 guides are read. */
  yieldAfterMs: 10,
  /** A file whose change time is this close to when the index read it is read again at the next check, whatever its
   * `stat` says: a second write in the same tick of the file system's clock leaves the same times (2 s is FAT's tick,
   * the coarsest in use; ext4, XFS and tmpfs keep nanoseconds, NFS the server's). */
  sameTickMs: 2_000,
})
