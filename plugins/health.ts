import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { ContentReadStats } from '../src/content/content-files.ts'

export interface HealthOptions {
  /** The reads of CONTENT_DIR (src/content/content-files.ts): reported in the answer's details. */
  contentReads?: () => ContentReadStats
}

const healthResponse = {
  200: {
    type: 'object',
    properties: {
      status: { type: 'string', const: 'ok' },
      content: {
        type: 'object',
        properties: {
          readsInFlight: { type: 'integer' },
          readsStuck: { type: 'integer' },
          readTimeouts: { type: 'integer' },
        },
      },
    },
    required: ['status'],
  },
} as const

/**
 * GET /api/health: liveness for load balancers and orchestrators. Never cached. Answered under overload too
 * (exempt from load shedding): a saturated process is alive, and restarting it would only move its load elsewhere.
 * Its details say how the reads of CONTENT_DIR fare: a mount that stops answering fails its pages (500) and is
 * reported here, in a warn line and in a metric, but never makes the instance unhealthy or unready, since every
 * instance reading the same folder would leave together (docs/content.md "What a content file may be").
 */
async function health(fastify: FastifyInstance, healthOptions: HealthOptions) {
  const { contentReads } = healthOptions
  const options = { schema: { response: healthResponse }, config: { exemptFromShedding: true } }
  fastify.get('/api/health', options, async function reportHealth(_request, reply) {
    reply.header('cache-control', 'no-store')
    if (!contentReads) return { status: 'ok' }
    const { inFlight, stuck, timedOut } = contentReads()
    return { status: 'ok', content: { readsInFlight: inFlight, readsStuck: stuck, readTimeouts: timedOut } }
  })
}

export default fp(health, { name: 'courier-health', fastify: '5.x' })
