import fp from 'fastify-plugin'
import fastifyCookie from '@fastify/cookie'
import { randomBytes } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Redis } from 'ioredis'
import { sessions as limits } from '../config/sessions.ts'
import { errors } from '../src/errors.ts'
import { Sessions } from '../src/session.ts'
import { MemorySessionStore, RedisSessionStore, type SessionStore } from '../src/session-stores.ts'

export interface SessionsOptions {
  /** SESSION_SECRET; undefined: one made now, so sessions end with the process (a warning says so). */
  secret: string | undefined
  /** SESSION_REDIS_URL; undefined: sessions in this process's memory. */
  redisUrl?: string | undefined
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's sessions (src/session.ts): `sessions.of(request)`. Absent on an instance without this plugin. */
    sessions?: Sessions
  }
}

/** The store of SESSION_REDIS_URL, its own connection (never the shared state's, which may evict), or memory. */
function storeOf(fastify: FastifyInstance, redisUrl: string | undefined): SessionStore {
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
 * Sessions (docs/sessions.md): @fastify/cookie reads and signs cookies (its hook off: a cookie is parsed only when a
 * session is asked for); Courier's `Sessions` reads a request's session on first use and keeps it server-side, so a
 * request that never asks (a static page, an asset) costs nothing, and signing out ends a session for good.
 * @fastify/session was measured and left: it makes a session object with a random id for every request, cookie or not
 * (`/` served 30 % fewer requests a second).
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
  await fastify.register(fastifyCookie, { secret, hook: false })
  fastify.decorate('sessions', new Sessions(storeOf(fastify, options.redisUrl), fastify))

  const sessionsOfApp = fastify.sessions!
  // A callback hook, not an async one: every answer passes here, and one without a session must cost no promise.
  fastify.addHook(
    'onSend',
    function writeSessionCookie(request: FastifyRequest, reply: FastifyReply, payload: unknown, done) {
      const cookie = sessionsOfApp.pendingCookie(request)
      if (cookie !== undefined) {
        const had = reply.getHeader('set-cookie')
        reply.header(
          'set-cookie',
          had === undefined ? cookie : [...([] as string[]).concat(had as string | string[]), cookie],
        )
      }
      done(null, payload)
    },
  )
  fastify.addHook('onError', async function retryWhenStoreIsBack(_request, reply, error) {
    if ((error as { code?: string }).code === 'COURIER_ERR_SESSION_STORE_DOWN') {
      reply.header('retry-after', String(limits.storeDownRetryAfterS))
    }
  })
}

export default fp(sessions, { name: 'courier-sessions', fastify: '5.x' })
