import fp from 'fastify-plugin'
import { Signer } from '@fastify/cookie'
import { parseCookie, stringifySetCookie } from 'cookie'
import { randomBytes } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { sessions as limits } from '../config/sessions.ts'
import { errors } from '../src/errors.ts'
import { Sessions, type CookieTools } from '../src/session.ts'
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

/**
 * The store of SESSION_REDIS_URL, its own connection (never the shared state's, which may evict), or memory. ioredis
 * is loaded only then: a server without it does not parse the client's 200 kB at start.
 */
async function storeOf(fastify: FastifyInstance, redisUrl: string | undefined): Promise<SessionStore> {
  if (!redisUrl) return new MemorySessionStore()
  const { Redis } = await import('ioredis')
  // A command waits for the connection at most the store's time-out (src/session-stores.ts), then counts as down.
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 })
  redis.on('error', () => undefined) // each failed command is reported by the store, once per outage
  fastify.addHook('onClose', async function closeSessionRedis() {
    redis.disconnect()
  })
  return new RedisSessionStore(redis, fastify.log.child({ store: 'sessions' }))
}

/**
 * Sessions (docs/sessions.md): @fastify/cookie's functions read and sign cookies (a cookie is parsed only when a
 * session is asked for); Courier's `Sessions` reads a request's session on first use and keeps it server-side, so a
 * request that never asks (a static page, an asset) costs nothing, and signing out ends a session for good.
 * @fastify/session was measured and left: it makes a session object with a random id for every request, cookie or not
 * (`/` served 30 % fewer requests a second).
 */
async function sessions(fastify: FastifyInstance, options: SessionsOptions) {
  const { secret } = options
  if (secret === undefined) {
    fastify.log.warn('no SESSION_SECRET: sessions end when this process does (docs/sessions.md)')
  } else if (secret.length < limits.minSecretLength) {
    throw new errors.OptionInvalid('secret', `at least ${limits.minSecretLength} characters (SESSION_SECRET)`)
  }
  // The cookie package's parser and serialiser and @fastify/cookie's signer, as functions: registering the plugin adds an onSend
  // hook, and any onSend hook sends every answer of the app through Fastify's hook runner (measured: `/` and its data
  // 17 to 28 % fewer requests a second). A session cookie is set on its answer when the session writes it. The signer
  // (and without SESSION_SECRET its random secret) is made for the first cookie: making one tries an HMAC with random
  // bytes, which every start paid for, cookie or not.
  let signer: Signer | undefined
  const signerOf = () => (signer ??= new Signer(secret ?? randomBytes(32).toString('base64url')))
  const cookies: CookieTools = {
    parseCookie: (header) => parseCookie(header),
    signCookie: (value) => signerOf().sign(value),
    unsignCookie: (value) => signerOf().unsign(value),
    serializeCookie: (name, value, options) => stringifySetCookie({ name, value, ...options }),
  }
  fastify.decorate('sessions', new Sessions(await storeOf(fastify, options.redisUrl), cookies))
  fastify.addHook('onError', async function retryWhenStoreIsBack(_request, reply, error) {
    if ((error as { code?: string }).code === 'COURIER_ERR_SESSION_STORE_DOWN') {
      reply.header('retry-after', String(limits.storeDownRetryAfterS))
    }
  })
}

export default fp(sessions, { name: 'courier-sessions', fastify: '5.x' })
