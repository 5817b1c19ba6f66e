/** Server limits (ours): each keeps one failure mode bounded. */
export const serverLimits = Object.freeze({
  /** A whole request must arrive within this time (slowloris guard); Node answers 408. */
  requestTimeoutMs: 10_000,
  /** Headers must arrive within this time. */
  headersTimeoutMs: 5_000,
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
  /** Load shedding (plugins/load-shedding.ts): the event loop's mean delay is sampled this often. A second is long
   * enough that one slow tick among ~100 does not shed, short enough that the server recovers within ~2 s. */
  loadSampleIntervalMs: 1000,
  /** New requests get 503 while the mean event-loop delay of the last sample is over this: every timer and socket is
   * then served this late, so a new request would mostly add to a queue. Far above what saturating keep-alive load
   * causes here (a few ms), well below the time-outs above. Utilisation is not a trigger: a server at ~100 % that
   * still turns its loop over quickly is doing useful work at full speed. */
  maxEventLoopDelayMs: 200,
  /** The `Retry-After` of a shed request, in seconds: about two samples, the time the server needs to recover. */
  overloadRetryAfterSeconds: 2,
})
