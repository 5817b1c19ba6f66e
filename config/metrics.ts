/**
 * Prometheus metrics (docs/operations.md "Metrics"): every constant in one place, each with its reason. Names follow
 * the Prometheus conventions (https://prometheus.io/docs/practices/naming/): a `courier_` prefix, base units (seconds,
 * bytes), `_total` on counters.
 */

/** The one path the metrics port answers (Prometheus' default `metrics_path`). */
export const metricsPath = '/metrics'

/** The route label of a request no route matched (the 404 handler, a malformed URL): never the URL itself. */
export const unmatchedRoute = 'unmatched'

/**
 * Methods kept as they are in the method label; any other (Node's parser knows some 30, WebDAV's among them) is
 * `OTHER`, so a client choosing methods cannot add series.
 */
export const labelledMethods: readonly string[] = Object.freeze([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
])
export const otherMethod = 'OTHER'

export const metricBuckets = Object.freeze({
  /**
   * Request and render durations, in seconds. Courier answers a kept page in 1-2 ms and streams a dynamic one in
   * 10-30 ms under load (docs/benchmarks.md "Latest results"), so the buckets start at 1 ms; the render time-out (10 s,
   * config/server.ts) is the last one. 13 buckets: each labelled series costs 16 lines of a scrape.
   */
  requestSeconds: Object.freeze([0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]),
  /** Image transforms, in seconds: sharp takes 10-300 ms for the site's sizes; the transform time-out caps it. */
  transformSeconds: Object.freeze([0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]),
})

export const metricsEndpointLimits = Object.freeze({
  /**
   * Connections the metrics port holds at once. Prometheus keeps one per target; a few more let an operator's curl or a
   * second Prometheus in. A new connection beyond it closes the connection idle the longest (src/metrics/endpoint.ts),
   * so clients that open connections and sit on them cannot lock a scraper out; only when every connection is in the
   * middle of a scrape is the new one refused at the socket. The site's loop never pays for more.
   */
  maxConnections: 8,
  /** Headers of a scrape must arrive within this (Prometheus sends them at once). */
  headersTimeoutMs: 5_000,
  /** A whole scrape request must arrive within this. */
  requestTimeoutMs: 10_000,
  /**
   * An idle kept-alive scrape connection is closed after this: below Prometheus' default scrape interval (15 s), so a
   * connection that asked once and idles is gone before the next scrape; Prometheus opens a new one per scrape (a
   * loopback or LAN handshake, nothing next to a collection).
   */
  keepAliveTimeoutMs: 10_000,
  /** How often Node checks the two request time-outs above (its default, 30 s, would let them run 3-6 times over). */
  timeoutCheckIntervalMs: 1_000,
  /**
   * A scrape within this long of the last collection gets that collection's text: a scraper in a loop costs at most
   * one collection a second (some 6-10 ms of CPU for the 1,100 series left by the fuzz pass, docs/operations.md
   * "Metrics") on the site's event loop. Prometheus' default interval is 15 s, and 1 s is the finest that makes sense.
   */
  minCollectionIntervalMs: 1_000,
})

/**
 * prom-client's default metrics: event-loop delay sampled every this many milliseconds (its own default, 10 ms; the
 * histogram behind it is libuv's, so the sampling costs no JavaScript per tick).
 */
export const eventLoopMonitoringPrecisionMs = 10
