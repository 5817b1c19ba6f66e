import fp from 'fastify-plugin'
import rateLimit, { normalizeIP } from '@fastify/rate-limit'
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { revalidation } from '../config/content.ts'
import { errors } from '../src/errors.ts'
import { methodNotAllowedRoute } from '../src/method-not-allowed.ts'
import { sharedRateLimitStore } from '../src/shared-state/rate-limit-store.ts'

export interface RevalidateOptions {
  /** REVALIDATE_TOKEN: the bearer token a call must carry. */
  token: string
  /**
   * Tells every instance (this process, its sibling workers, the fleet) to revalidate; resolves once each has been
   * told, with how many were. Default: this process only.
   */
  broadcast?: (request: RevalidationRequest) => Promise<{ instances: number }>
}

export interface RevalidationRequest {
  paths: string[]
  tags: string[]
}

const itemSchema = { type: 'string', minLength: 1, maxLength: revalidation.maxItemLength } as const

const bodySchema = {
  type: 'object',
  additionalProperties: false,
  // At least one of the two, with at least one item: an empty call revalidates nothing and is a mistake.
  anyOf: [
    { required: ['paths'], properties: { paths: { minItems: 1 } } },
    { required: ['tags'], properties: { tags: { minItems: 1 } } },
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
        properties: { paths: { type: 'array', items: { type: 'string' } }, tags: { type: 'array', items: { type: 'string' } } },
      },
      instances: { type: 'integer' },
      now: { type: 'integer' },
    },
  },
} as const

/** A digest of a token: compared in constant time whatever the lengths (timingSafeEqual needs equal lengths). */
function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest()
}

/**
 * POST /api/revalidate (docs/content.md): with `Authorization: Bearer <REVALIDATE_TOKEN>` and a JSON body
 * `{ "paths": [...], "tags": [...] }`, every kept page at those paths or carrying those tags is regenerated on every
 * instance. 200 once every instance has been told (each then serves the new version: a request for a named page
 * waits for its one regeneration); 401 without the token or with another (compared in constant time); 400 for a
 * bad body, with the reason; 429 for a flood. Registered only when REVALIDATE_TOKEN is set: otherwise the path is a
 * 404 like any other.
 */
async function revalidate(fastify: FastifyInstance, options: RevalidateOptions) {
  const { token } = options
  if (typeof token !== 'string' || token.length < revalidation.minTokenLength) {
    throw new errors.OptionInvalid('token', `a bearer token of at least ${revalidation.minTokenLength} characters`)
  }
  const expected = tokenDigest(token)
  const broadcast =
    options.broadcast ??
    (async (request: RevalidationRequest) => {
      fastify.revalidatePages(request)
      return { instances: 1 }
    })

  async function requireToken(request: FastifyRequest) {
    const header = request.headers.authorization ?? ''
    const presented = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : ''
    if (!timingSafeEqual(tokenDigest(presented), expected)) throw new errors.RevalidateUnauthorized()
  }

  async function revalidateRequested(request: FastifyRequest<{ Body: Partial<RevalidationRequest> }>, reply: FastifyReply) {
    const wanted = { paths: request.body.paths ?? [], tags: request.body.tags ?? [] }
    const startedAt = performance.now()
    const { instances } = await broadcast(wanted)
    request.log.info({ ...wanted, instances, durationMs: Math.round((performance.now() - startedAt) * 10) / 10 }, 'revalidation told')
    return reply.code(200).header('cache-control', 'no-store').send({ revalidated: wanted, instances, now: Date.now() })
  }

  await fastify.register(async function revalidateRoute(scope) {
    await scope.register(rateLimit, {
      global: false,
      keyGenerator: (request) => (request.ip === undefined ? 'connection-gone' : normalizeIP(request.ip)),
      ...(fastify.hasDecorator('sharedRedis') && fastify.sharedRedis ? { store: sharedRateLimitStore(fastify.sharedRedis) } : {}),
      errorResponseBuilder: (_request, context) => new errors.RevalidateRateLimited(context.after),
    })
    scope.post(revalidation.path, {
      bodyLimit: revalidation.bodyLimitBytes,
      config: { rateLimit: { max: revalidation.maxPerWindow, timeWindow: revalidation.windowMs } },
      schema: { body: bodySchema, response: responseSchema },
      // The token first: a caller without it learns nothing of what a good body looks like.
      onRequest: requireToken,
      handler: revalidateRequested,
    })
    scope.route(methodNotAllowedRoute(scope, revalidation.path, ['POST']))
  })
}

export default fp(revalidate, { name: 'courier-revalidate', fastify: '5.x', dependencies: ['courier-pages'] })
