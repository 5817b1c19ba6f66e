import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { ContentReadStats } from '../src/content/content-files.ts'
import type { ContentIndexStats } from '../src/content/content-source.ts'
import { regenerationStatsSchema } from '../src/pages/regeneration.ts'

export interface HealthOptions {
  /** The reads of CONTENT_DIR (src/content/content-files.ts): reported in the answer's details. */
  contentReads?: () => ContentReadStats
  /** The index of the guides (src/content/content-index.ts): whether it is built, how many it holds, its version. */
  contentIndex?: () => ContentIndexStats
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
          index: {
            type: 'object',
            properties: { ready: { type: 'boolean' }, guides: { type: 'integer' }, version: { type: 'integer' } },
          },
        },
      },
      /** This instance's page regenerations (docs/content.md "Revalidation on demand"). */
      regenerations: regenerationStatsSchema,
    },
    required: ['status'],
  },
} as const

/**
 * GET /api/health: liveness for load balancers and orchestrators. Never cached. Answered under overload too
 * (exempt from load shedding): a saturated process is alive, and restarting it would only move its load elsewhere.
 * Its details say how the reads of CONTENT_DIR fare: a mount that stops answering fails its pages (500) and is
 * reported here, in a warn line and in a metric, but never makes the instance unhealthy or unready, since every
 * instance reading the same folder would leave together (docs/content.md "What a content file may be"). And what the
 * page regenerations are doing: pages marked by a revalidation and not asked for since, running, queued, failing.
 */
async function health(fastify: FastifyInstance, healthOptions: HealthOptions) {
  const { contentReads, contentIndex } = healthOptions
  const options = { schema: { response: healthResponse }, config: { exemptFromShedding: true } }
  fastify.get('/api/health', options, async function reportHealth(_request, reply) {
    reply.header('cache-control', 'no-store')
    const regenerations = fastify.pageRegenerations ? { regenerations: fastify.pageRegenerations() } : {}
    if (!contentReads) return { status: 'ok', ...regenerations }
    const { inFlight, stuck, timedOut } = contentReads()
    const reads = { readsInFlight: inFlight, readsStuck: stuck, readTimeouts: timedOut }
    return { status: 'ok', content: contentIndex ? { ...reads, index: contentIndex() } : reads, ...regenerations }
  })
}

export default fp(health, { name: 'courier-health', fastify: '5.x' })
