/** Server limits (ours): each keeps one failure mode bounded. */
export const serverLimits = Object.freeze({
  /** A whole request must arrive within this time (slowloris guard); Node answers 408. */
  requestTimeoutMs: 10_000,
  /** Headers must arrive within this time. */
  headersTimeoutMs: 5_000,
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
  /** Page data of `static` pages kept in memory per deployment, at most this many URLs: loaders decide which paths
   * exist (unknown ones are not-found answers, never kept), and this caps what a large site can hold. */
  pageDataCacheEntries: 1000,
  /** SIGTERM: in-flight requests get this long to finish before the process exits anyway (DESIGN.md section 10). */
  shutdownGraceMs: 10_000,
  /** While draining for shutdown, a kept-alive connection idle this long is closed (instead of keepAliveTimeoutMs):
   * the window in which a client that reuses it gets 503 with `Connection: close` rather than a reset. */
  drainKeepAliveTimeoutMs: 1_000,
})
