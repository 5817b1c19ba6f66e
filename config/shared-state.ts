/**
 * Shared state in Redis (REDIS_URL, docs/running-at-scale.md "Shared state: `REDIS_URL`"). Ours. Redis is optional and
 * may be slow or gone: every wait for it is short and bounded, and its failure means "local only", never an error for
 * the request.
 */
export const sharedState = Object.freeze({
  /** Every key Courier writes starts with this, so one Redis can hold other data too. */
  keyPrefix: 'courier:',
  /** A Redis command that has not answered by then fails (the request goes on with local state). A loopback or LAN
   * Redis answers in well under a millisecond; an image entry of a few hundred KiB in a few. */
  commandTimeoutMs: 250,
  /** A connection attempt that has not succeeded by then fails, and the next is scheduled. */
  connectTimeoutMs: 1_000,
  /** Reconnection back-off: this, times the attempt, at most `reconnectMaxDelayMs`. */
  reconnectBaseDelayMs: 100,
  reconnectMaxDelayMs: 2_000,
  /** The lock an instance takes before it transforms an image (`SET NX PX`): held at most this long, so a holder that
   * crashed frees it by itself. Above the transform time-out (config/images.ts transformTimeoutS, 8 s) plus the read.
   * */
  imageLockMs: 10_000,
  /** An instance that finds the lock taken polls Redis this often for the holder's result. */
  imageWaitPollMs: 50,
  /** ...and at most this long, then transforms itself (the holder is stuck or gone). */
  imageWaitMaxMs: 10_000,
  /** An optimized image stays in Redis this long past its expiry: it can still be served STALE (and refreshed) by any
   * instance. Within it, Redis' own eviction (`maxmemory` with `maxmemory-policy allkeys-lru`) bounds the memory. */
  imageRetentionMs: 24 * 60 * 60 * 1000,
  /** The longest an image stays in Redis, however long its source says it is fresh (a remote `max-age` of a year):
   * every entry has a bounded time to live, whatever `maxmemory` says. Two days: an image still requested comes back
   * from the instance that makes it again; one that is not leaves on its own. */
  imageMaxTtlMs: 2 * 24 * 60 * 60 * 1000,
})

/** The limits as options take them (tests shorten them): any number where the config has one. */
export type SharedStateLimits = {
  readonly [Key in keyof typeof sharedState]: (typeof sharedState)[Key] extends number ? number : string
}
