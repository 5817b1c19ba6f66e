import fp from 'fastify-plugin'
import fastifyCookie from '@fastify/cookie'
import fastifySession from '@fastify/session'
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { Redis } from 'ioredis'
import { sessions as limits } from '../config/sessions.ts'
import { errors } from '../src/errors.ts'
import { MemorySessionStore, RedisSessionStore, type CallbackSessionStore } from '../src/session-stores.ts'

export interface SessionsOptions {
  /** SESSION_SECRET; undefined: one made now, so sessions end with the process (a warning says so). */
  secret: string | undefined
  /** SESSION_REDIS_URL; undefined: sessions in this process's memory. */
  redisUrl?: string | undefined
}

declare module 'fastify' {
  interface Session {
    /** Who signed in with this session (`signIn`). */
    userId?: string
  }
}

/** The store of SESSION_REDIS_URL, its own connection (never the shared state's, which may evict), or memory. */
function storeOf(fastify: FastifyInstance, redisUrl: string | undefined): CallbackSessionStore {
  if (!redisUrl) return new MemorySessionStore()
  // A command waits for the connection at most the store's time-out (src/session-stores.ts), then counts as down.
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 })
  redis.on('error', () => undefined) // each failed command is reported by the store, once per outage
  fastify.addHook('onClose', async function closeSessionRedis() {
    redis.disconnect()
  })
  return new RedisSessionStore(redis, fastify.log.child({ store: 'sessions' }))
}

/**
 * Sessions (docs/sessions.md), through @fastify/cookie and @fastify/session with a store of Courier's: a signed cookie
 * (`HttpOnly`, `SameSite=Lax`, `Secure` whenever the request came over HTTPS, `Path=/`) naming a session kept
 * server-side, so signing out ends it for good. A request without the cookie costs nothing: no store is asked and no
 * cookie is set until something is put in a session (`saveUninitialized: false`); a forged, tampered or expired
 * cookie, or one merely named like it, is no session.
 */
async function sessions(fastify: FastifyInstance, options: SessionsOptions) {
  let secret = options.secret
  if (secret === undefined) {
    secret = randomBytes(32).toString('base64url')
    fastify.log.warn('no SESSION_SECRET: sessions end when this process does (docs/sessions.md)')
  }
  if (secret.length < limits.minSecretLength) {
    throw new errors.OptionInvalid('secret', `at least ${limits.minSecretLength} characters (SESSION_SECRET)`)
  }
  await fastify.register(fastifyCookie)
  await fastify.register(fastifySession, {
    secret,
    cookieName: limits.cookieName,
    saveUninitialized: false,
    rolling: false,
    store: storeOf(fastify, options.redisUrl),
    cookie: { path: '/', httpOnly: true, secure: 'auto', sameSite: 'lax', maxAge: limits.maxAgeMs },
  })
  fastify.addHook('onError', async function retryWhenStoreIsBack(_request, reply, error) {
    if ((error as { code?: string }).code === 'COURIER_ERR_SESSION_STORE_DOWN') {
      reply.header('retry-after', String(limits.storeDownRetryAfterS))
    }
  })
}

export default fp(sessions, { name: 'courier-sessions', fastify: '5.x' })
