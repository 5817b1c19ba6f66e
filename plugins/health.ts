import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'

const healthResponse = {
  200: {
    type: 'object',
    properties: { status: { type: 'string', const: 'ok' } },
    required: ['status'],
  },
} as const

/** GET /api/health: liveness for load balancers and orchestrators. Never cached. */
async function health(fastify: FastifyInstance) {
  fastify.get('/api/health', { schema: { response: healthResponse } }, async function reportHealth(_request, reply) {
    reply.header('cache-control', 'no-store')
    return { status: 'ok' }
  })
}

export default fp(health, { name: 'courier-health', fastify: '5.x' })
