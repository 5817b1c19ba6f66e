/** Server limits (ours): each keeps one failure mode bounded. */
export const serverLimits = Object.freeze({
  /** A whole request must arrive within this time (slowloris guard); Node answers 408. */
  requestTimeoutMs: 10_000,
  /** Headers must arrive within this time. */
  headersTimeoutMs: 5_000,
  /** How often Node checks the two time-outs above. Its default (30 s) would let a slow sender hold a socket up to
   * 35 s despite a 5 s header time-out; at 1 s the time-outs hold within a second. */
  timeoutCheckIntervalMs: 1_000,
  /** A connection on which no byte moves either way for this long is destroyed (Fastify connectionTimeout, Node's
   * socket time-out): it bounds a response that is never read (a stalled or 1 byte/s reader leaves the write
   * pending; backpressure keeps the memory it holds to the socket buffers). requestTimeoutMs covers only the
   * request. Above the longest legitimate silence: a render waiting for data (renderTimeoutMs) or an image fetch. */
  connectionTimeoutMs: 30_000,
  /** Idle keep-alive sockets are closed after this. */
  keepAliveTimeoutMs: 5_000,
  /** Request bodies larger than this get 413. Courier's API takes small JSON only. */
  bodyLimitBytes: 64 * 1024,
  /** Request headers larger than this get 431 (Node's own default, stated here so it is visible). */
  maxHeaderSizeBytes: 16 * 1024,
  /** Route parameters longer than this do not match (404). */
  maxParamLength: 200,
  /** A render that has not finished by then is aborted; what was flushed stays, the error screen follows. */
  renderTimeoutMs: 10_000,
  /** The request-time loader of a partly prerendered page that has not answered by then fails its holes (they show
   * the error screen's section with a digest): half the render time-out, so the failure is rendered into the hole
   * before the render itself is aborted. */
  liveDataTimeoutMs: 5_000,
  /** Partly prerendered pages (src/render/hole-turns.ts): the time one turn of the event loop spends resuming holes
   * before Node reads the sockets again. A request that arrives meanwhile gets its shell about this much later at
   * most; the shorter, the more turns a busy server takes for the same renders. */
  holeTurnBudgetMs: 1,
  /** A resume that has waited this long means the server renders holes slower than requests come: turns stop
   * yielding to new requests until the queue is empty, so the event loop's delay (load shedding's signal) shows the
   * load. */
  holeBacklogMs: 50,
  /** `static` page instances kept in memory per deployment, at most this many: each holds its loader's answer, its
   * page data as sent and its document rendered once. Loaders decide which paths exist (not-found answers are never
   * kept), and this caps what a large site can hold. Error documents without a digest are kept by status besides. */
  staticPageCacheEntries: 1000,
  /** ...and at most this many bytes of them, estimated (src/pages/version-store.ts keptVersionBytes: about four times
   * a page's data). Past either bound the least recently asked-for instance goes, with its document, and is loaded
   * again when next asked for (counted: `courier_kept_pages_evicted_total`). 64 MiB holds the thousand pages of a
   * few kilobytes each; a site of large pages keeps fewer rather than grow without bound. */
  staticPageCacheBytes: 64 * 1024 * 1024,
  /** SIGTERM: in-flight requests get this long to finish before the process exits anyway (docs/operations.md
   * "Shutdown"). */
  shutdownGraceMs: 10_000,
  /** Load shedding (plugins/load-shedding.ts): the event loop's mean delay is sampled this often. A sample in which
   * the loop never turned over counts as infinite delay, so this is also the longest single tick a busy server may
   * have without shedding. */
  loadSampleIntervalMs: 5000,
  /** New requests get 503 while the mean event-loop delay of the last sample is over this: the loop is then stuck
   * rather than busy, every timer and socket is served seconds late, and a new request would only add to the queue.
   * A busy server must not be shed: the reliability suite's full load (autocannon -c 100 -p 10 over the mix, 1000
   * requests in flight, test/reliability/load.test.ts) is served in full. On a shared 2-core VM that load gave
   * means of 50-630 ms per second and ticks up to 1.35 s at load average ~7, and was still shed at 2 s over 3 s
   * samples at load average ~18: the server's share of the CPU sets its tick length. Utilisation is not a trigger:
   * at ~100 % a server that still turns its loop over is doing useful work at full speed. */
  maxEventLoopDelayMs: 3000,
  /** The `Retry-After` of a shed request, in seconds: about two samples, the time the server needs to recover. */
  overloadRetryAfterSeconds: 10,
  /** While draining for shutdown, a kept-alive connection idle this long is closed (instead of keepAliveTimeoutMs):
   * the window in which a client that reuses it gets 503 with `Connection: close` rather than a reset. */
  drainKeepAliveTimeoutMs: 1_000,
  /** After listening, the route schemas no request has needed yet are compiled this much later (src/lazy-schema-
   * compilers.ts): the first requests of a fresh instance do not queue behind a compiler building Ajv (~30 ms). */
  schemaWarmUpDelayMs: 1_000,
})

/**
 * The status page's memory figures (src/pages/process-memory.ts). The heap figures are read per request (V8 answers
 * in well under a microsecond); the resident set size comes from the kernel (`/proc/self/stat` on Linux), which
 * took some 60 µs a call in a loaded server, a sixth of a `/status` response (docs/performance.md "The status page's
 * memory figures"), so it is read at most this often and shown as read. A person reloading the page, or a probe,
 * never sees a figure older than this.
 */
export const processMemory = Object.freeze({
  rssMaxAgeMs: 100,
})
