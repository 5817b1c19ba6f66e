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
  /** Documents of `static` pages (and error pages without a digest) rendered once and kept in memory per deployment,
   * at most this many: only URLs whose loader returned props get one, and this caps what a large site can hold. */
  documentCacheEntries: 1000,
  /** SIGTERM: in-flight requests get this long to finish before the process exits anyway (DESIGN.md section 10). */
  shutdownGraceMs: 10_000,
})
