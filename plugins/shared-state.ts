import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { SharedStateLimits } from '../config/shared-state.ts'
import { errors } from '../src/errors.ts'
import type { SharedRedis } from '../src/shared-state/redis.ts'

export interface SharedStateOptions {
  /** REDIS_URL; undefined: no shared state, every instance keeps its own (the default). */
  redisUrl: string | undefined
  /** Overrides of config/shared-state.ts (tests shorten time-outs). */
  limits?: Partial<SharedStateLimits>
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The Redis connection that instances share state through, or null when REDIS_URL is unset. */
    sharedRedis: SharedRedis | null
  }
}

/**
 * Shared state for many instances (docs/running-at-scale.md "Shared state: `REDIS_URL`"): one Redis connection per
 * process, made at start-up without waiting for it (a Redis that is down does not stop the server) and closed with the
 * app. The image cache (plugins/image.ts) and the client-report rate limit (plugins/client-errors.ts) use it when it is
 * there.
 */
async function sharedStatePlugin(fastify: FastifyInstance, options: SharedStateOptions) {
  const { redisUrl, limits } = options
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new errors.OptionInvalid('redisUrl', 'a redis:// or rediss:// URL')
  }
  // Loaded only when configured: a server without REDIS_URL never evaluates the Redis client at start-up.
  const redis =
    redisUrl === undefined
      ? null
      : new (await import('../src/shared-state/redis.ts')).SharedRedis({
          url: redisUrl,
          log: fastify.log,
          ...(limits ? { limits } : {}),
        })
  fastify.decorate('sharedRedis', redis)
  if (redis) {
    fastify.addHook('onClose', async function closeRedis() {
      await redis.close()
    })
  }
}

export default fp(sharedStatePlugin, { name: 'courier-shared-state', fastify: '5.x' })
