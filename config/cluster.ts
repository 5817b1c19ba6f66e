/** The primary of a WEB_CONCURRENCY cluster (src/cluster.ts): how it replaces workers and how long it waits. Ours. */
export const clusterLimits = Object.freeze({
  /** A worker that dies is replaced after this, doubled for each death in the last `crashWindowMs`: a worker that
   * crashes at start-up (a bad build, a port taken) cannot spin the machine in a fork loop. */
  restartBaseDelayMs: 100,
  /** The longest wait before a replacement. */
  restartMaxDelayMs: 10_000,
  /** Deaths further apart than this do not add to the back-off. */
  crashWindowMs: 60_000,
  /** SIGTERM: workers drain with their own grace period (serverLimits.shutdownGraceMs); the primary waits that long
   * plus this margin for their exit, then kills what is left. */
  drainMarginMs: 2_000,
  /** Ctrl+C reaches every worker through the terminal's process group; a SIGINT sent to the primary alone is passed
   * on to workers still running after this. */
  interruptForwardDelayMs: 500,
})
