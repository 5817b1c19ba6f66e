import rateLimit, { normalizeIP } from '@fastify/rate-limit'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { errors } from './errors.ts'
import { sharedRateLimitStore } from './shared-state/rate-limit-store.ts'
import { redisRateLimits } from './shared-state/redis-rate-limit.ts'

/**
 * A request's client as every rate limit counts it: its address (the proxy's view with `TRUST_PROXY`; an IPv6 /64 as
 * one client). Node forgets the address once the connection is gone, which can happen before a hook runs (a body that
 * breaks right after the head): such requests share one budget of their own, so hanging up never skips the limit.
 */
export function clientOf(request: FastifyRequest): string {
  return request.ip === undefined ? 'connection-gone' : normalizeIP(request.ip)
}

/**
 * @fastify/rate-limit in `scope` for the routes that ask (`config: { rateLimit: { max, timeWindow } }`) and the
 * limiters made with `scope.createRateLimit`: counted per client, across the fleet with REDIS_URL (in memory while
 * Redis is away, never a 5xx for want of it), refused with a 429 of the status table and `Retry-After`.
 */
export async function registerRateLimits(
  scope: FastifyInstance,
  refusal: (after: string) => Error = (after) => new errors.RateLimited(after),
): Promise<void> {
  const redis = scope.hasDecorator('sharedRedis') ? scope.sharedRedis : null
  await scope.register(rateLimit, {
    global: false,
    keyGenerator: clientOf,
    ...(redis ? { store: sharedRateLimitStore(redisRateLimits(redis)) } : {}),
    errorResponseBuilder: (_request, context) => refusal(context.after),
  })
}
