/** Sessions (docs/sessions.md): the cookie, how long a session lives, and where sessions are kept. */
export const sessions = Object.freeze({
  /** The session cookie's name: the site's own, never a framework's default, and one no other cookie starts with. */
  cookieName: 'courier_session',
  /**
   * How long a session lives from its sign-in: a week, then the visitor signs in again. Absolute, not sliding: a
   * stolen cookie is worth a week at most, whatever its use.
   */
  maxAgeMs: 7 * 24 * 60 * 60 * 1000,
  /** The secret that signs the cookie: at least this long (@fastify/session's own minimum), 8 characters different. */
  minSecretLength: 32,
  minSecretDistinct: 8,
  /**
   * Sessions one instance keeps in memory without SESSION_REDIS_URL: a bound, so a flood of sign-ins cannot grow the
   * process without end; the oldest go first.
   */
  memoryMaxSessions: 10_000,
  /** A session store that has not answered in this long is down for this request: no page waits on it longer. */
  storeTimeoutMs: 1_000,
  /** The Retry-After of a 503 while the session store is down (the client's wait before it tries again). */
  storeDownRetryAfterS: 5,
  /** Sign-in attempts a client may make per window (docs/sessions.md): enough for typos, not for guessing. */
  signInAttempts: 10,
  signInWindowMs: 60_000,
})
