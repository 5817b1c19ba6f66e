import fp from 'fastify-plugin'
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { revalidation } from '../config/content.ts'
import { errors } from '../src/errors.ts'
import { bearerToken, tokenCheck } from '../src/pages/bearer-token.ts'
import { clientOf, registerRateLimits } from '../src/rate-limits.ts'
import { regenerationStatsSchema } from '../src/pages/regeneration.ts'
import { ClusterRevalidation } from '../src/shared-state/cluster-revalidation.ts'
import type { RevalidatedPages, RevalidationMessage } from '../src/pages/revalidation.ts'
import type { SharedRedis } from '../src/shared-state/redis.ts'

export interface RevalidateOptions {
  /** REVALIDATE_TOKEN: the bearer token a call must carry; undefined: no route (this instance still hears the
   * revalidations other instances publish). */
  token: string | undefined
  /** The kept pages revalidations apply to (src/pages/page-versions.ts): plugins/pages.ts registers this plugin. */
  pages: RevalidatedPages
}

type RevalidationRequest = RevalidationMessage

const itemSchema = { type: 'string', minLength: 1, maxLength: revalidation.maxItemLength } as const

const bodySchema = {
  type: 'object',
  additionalProperties: false,
  // At least one of the two, with at least one item: an empty call revalidates nothing and is a mistake.
  anyOf: [
    { required: ['paths'], properties: { paths: { type: 'array', minItems: 1 } } },
    { required: ['tags'], properties: { tags: { type: 'array', minItems: 1 } } },
  ],
  properties: {
    paths: { type: 'array', maxItems: revalidation.maxItems, items: { ...itemSchema, pattern: '^/' } },
    tags: { type: 'array', maxItems: revalidation.maxItems, items: { ...itemSchema, pattern: '^[\\x21-\\x7e]+$' } },
  },
} as const

const responseSchema = {
  200: {
    type: 'object',
    properties: {
      revalidated: {
        type: 'object',
        properties: {
          paths: { type: 'array', items: { type: 'string' } },
          tags: { type: 'array', items: { type: 'string' } },
        },
      },
      /** Instances that applied the call within the wait (config/content.ts ackWaitMs), this one included. */
      instances: { type: 'integer' },
      /** Instances known alive (their heartbeat in Redis, or the cluster's workers). */
      alive: { type: 'integer' },
      /** This instance's regenerations after the call: the pages marked and not asked for since, and failures. */
      regenerations: regenerationStatsSchema,
      now: { type: 'integer' },
    },
  },
} as const

/** Revalidations through Redis: its modules loaded only with REDIS_URL. */
async function redisChannel(redis: SharedRedis, pages: RevalidatedPages, log: FastifyBaseLogger) {
  const [{ RevalidationChannel }, { RedisRevalidationLog }] = await Promise.all([
    import('../src/shared-state/revalidation-channel.ts'),
    import('../src/shared-state/redis-revalidation-log.ts'),
  ])
  return new RevalidationChannel({ fleet: new RedisRevalidationLog(redis, log), pages, log })
}

/** How a revalidation reaches every instance, chosen once at registration. */
interface RevalidationTransport {
  /** Tells every instance: how many applied the call (this one included), of how many are known alive. */
  tell(message: RevalidationMessage): Promise<{ instances: number; alive: number }>
  close(): Promise<void>
}

/**
 * Redis (REDIS_URL: every instance listens, whether or not it takes calls itself; under WEB_CONCURRENCY the workers
 * also hear their siblings through the primary, which carries calls while Redis is down), else the cluster's primary
 * (WEB_CONCURRENCY), else this process alone.
 */
async function revalidationTransport(
  fastify: FastifyInstance,
  redis: SharedRedis | null,
  pages: RevalidatedPages,
): Promise<RevalidationTransport> {
  const siblings = ClusterRevalidation.available() ? new ClusterRevalidation({ pages, log: fastify.log }) : undefined
  // The primary answers once every worker has been told, and knows them all.
  const tellSiblings = async (cluster: ClusterRevalidation, message: RevalidationMessage) => {
    const { instances } = await cluster.tell(message)
    return { instances, alive: instances }
  }
  if (redis) {
    const channel = await redisChannel(redis, pages, fastify.log)
    return {
      tell: (message) => (redis.up || !siblings ? channel.tell(message) : tellSiblings(siblings, message)),
      close: async () => {
        await channel.close()
        siblings?.close()
      },
    }
  }
  if (siblings) return { tell: (message) => tellSiblings(siblings, message), close: async () => siblings.close() }
  return {
    tell: async (message) => {
      pages.revalidate(message)
      return { instances: 1, alive: 1 }
    },
    close: async () => undefined,
  }
}

/**
 * POST /api/revalidate (docs/content.md): with `Authorization: Bearer <REVALIDATE_TOKEN>` and a JSON body
 * `{ "paths": [...], "tags": [...] }`, every kept page at those paths or carrying those tags is regenerated on every
 * instance. 200 once every instance alive has applied it, or after at most 1 s (each then serves the new version: a
 * request for a named page waits for its one regeneration), with how many did (`instances`) of how many are alive
 * (`alive`); 401 without the token or with another (compared in constant time); 400 for a
 * bad body, with the reason; 429 for a flood. The route exists only when REVALIDATE_TOKEN is set: otherwise the path
 * is a 404 like any other. With REDIS_URL, revalidations reach every instance through Redis
 * (src/shared-state/revalidation-channel.ts); without it, every worker of WEB_CONCURRENCY through the primary
 * (src/shared-state/cluster-revalidation.ts).
 */
async function revalidate(fastify: FastifyInstance, options: RevalidateOptions) {
  const { token, pages } = options
  // config/env.ts checks REVALIDATE_TOKEN's characters and length at start-up; a plugin registered by hand too.
  if (token !== undefined && (typeof token !== 'string' || token.length < revalidation.minTokenLength)) {
    throw new errors.OptionInvalid('token', `a bearer token of at least ${revalidation.minTokenLength} characters`)
  }
  const redis = fastify.hasDecorator('sharedRedis') ? fastify.sharedRedis : null
  const transport = await revalidationTransport(fastify, redis, pages)
  fastify.addHook('onClose', async function closeRevalidationTransport() {
    await transport.close()
  })
  // Without REVALIDATE_TOKEN: no route, POST /api/revalidate is a 404 like any unknown path.
  if (token === undefined) return
  const matchesToken = tokenCheck(token)

  async function revalidateRequested(
    request: FastifyRequest<{ Body: Partial<RevalidationRequest> }>,
    reply: FastifyReply,
  ) {
    const wanted = { paths: request.body.paths ?? [], tags: request.body.tags ?? [] }
    const startedAt = performance.now()
    const { instances, alive } = await transport.tell(wanted)
    const durationMs = Math.round((performance.now() - startedAt) * 10) / 10
    request.log.info({ ...wanted, instances, alive, durationMs }, 'revalidation told')
    const regenerations = fastify.pageRegenerations ? { regenerations: fastify.pageRegenerations() } : {}
    const answer = { revalidated: wanted, instances, alive, ...regenerations, now: Date.now() }
    return reply.code(200).header('cache-control', 'no-store').send(answer)
  }

  await fastify.register(async function revalidateRoute(scope) {
    await registerRateLimits(scope, (after) => new errors.RevalidateRateLimited(after))
    // Failed calls per client, a budget of their own (config/content.ts maxFailuresPerWindow), shared by the fleet
    // like the calls' budget. A client already out of it is refused before its token is compared; a failure is counted
    // in one atomic step (one Lua script in Redis, src/shared-state/redis-rate-limit.ts; one synchronous step in
    // memory) and answered by the number it got: only the first `maxFailuresPerWindow` numbers of a window are 401s,
    // however many guesses arrive at once.
    const failures = scope.createRateLimit({
      max: revalidation.maxFailuresPerWindow,
      timeWindow: revalidation.windowMs,
      keyGenerator: (request) => `revalidate-failures:${clientOf(request)}`,
    })

    /** The lockout: 429 with `Retry-After`, the seconds until the client's window of failures ends. */
    function refuseGuesser(
      request: FastifyRequest,
      reply: FastifyReply,
      spent: { max?: number; ttlInSeconds?: number },
    ) {
      const retryAfter = Math.max(1, spent.ttlInSeconds ?? 0)
      request.log.warn(
        { failures: spent.max, retryAfter },
        'revalidation refused: too many failed calls from this client',
      )
      reply.header('retry-after', String(retryAfter))
      return new errors.RevalidateRateLimited(`${retryAfter} seconds`)
    }

    async function requireToken(request: FastifyRequest, reply: FastifyReply) {
      const spent = await failures(request, { increment: false })
      if (!spent.isAllowed && spent.remaining === 0) throw refuseGuesser(request, reply, spent)
      if (matchesToken(bearerToken(request.headers.authorization))) return
      const counted = await failures(request)
      if (!counted.isAllowed && counted.isExceeded) throw refuseGuesser(request, reply, counted)
      throw new errors.RevalidateUnauthorized()
    }

    scope.post(revalidation.path, {
      bodyLimit: revalidation.bodyLimitBytes,
      config: { rateLimit: { max: revalidation.maxPerWindow, timeWindow: revalidation.windowMs } },
      schema: { body: bodySchema, response: responseSchema },
      // The failed calls' budget, then the token, then the calls' budget (the rate limit's own hook runs before this
      // route's): a caller without the token learns nothing of what a good body looks like.
      onRequest: requireToken,
      handler: revalidateRequested,
    })
    scope.methodTable?.allow(revalidation.path, ['POST'])
  })
}

export default fp(revalidate, { name: 'courier-revalidate', fastify: '5.x' })
