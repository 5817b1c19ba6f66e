import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'

const healthResponse = {
  200: {
    type: 'object',
    properties: { status: { type: 'string', const: 'ok' } },
    required: ['status'],
  },
} as const

/**
 * GET /api/health: liveness for load balancers and orchestrators. Never cached. Answered under overload too
 * (exempt from load shedding): a saturated process is alive, and restarting it would only move its load elsewhere.
 */
async function health(fastify: FastifyInstance) {
  const options = { schema: { response: healthResponse }, config: { exemptFromShedding: true } }
  fastify.get('/api/health', options, async function reportHealth(_request, reply) {
    reply.header('cache-control', 'no-store')
    return { status: 'ok' }
  })
}

export default fp(health, { name: 'courier-health', fastify: '5.x' })
