import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'

const readinessResponse = {
  200: {
    type: 'object',
    properties: { status: { type: 'string', const: 'ready' } },
    required: ['status'],
  },
  503: {
    type: 'object',
    properties: { status: { type: 'string', enum: ['starting', 'draining'] } },
    required: ['status'],
  },
} as const

type Phase = 'starting' | 'ready' | 'draining'

/**
 * GET /api/ready: readiness, beside /api/health (liveness). 503 `starting` until the server listens, 200 `ready`
 * while it serves, 503 `draining` from the moment it starts closing (SIGTERM): a load balancer or Kubernetes stops
 * sending it new requests while the ones in flight finish. Never cached. A request that arrives while draining is
 * answered 503 by plugins/drain.ts before it reaches this route, which says `draining` for the same reason.
 */
async function readiness(fastify: FastifyInstance) {
  let phase: Phase = 'starting'
  fastify.addHook('onListen', function markReady(done) {
    if (phase === 'starting') phase = 'ready'
    done()
  })
  fastify.addHook('preClose', function markDraining(done) {
    phase = 'draining'
    done()
  })

  const options = { schema: { response: readinessResponse }, config: { exemptFromShedding: true } }
  fastify.get('/api/ready', options, async function reportReadiness(_request, reply) {
    reply.header('cache-control', 'no-store')
    if (phase !== 'ready') return reply.code(503).send({ status: phase })
    return { status: 'ready' }
  })
}

export default fp(readiness, { name: 'courier-readiness', fastify: '5.x' })
