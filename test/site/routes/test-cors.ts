import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'

/**
 * A route opened to one partner site, as docs/your-routes.md "Other origins" says: @fastify/cors in the file's own
 * context answers the partner's preflight, and `crossSite: true` lets the partner's POST through the refusal.
 */
export default async function testCors(fastify: FastifyInstance) {
  await fastify.register(cors, { origin: 'https://partner.example', methods: ['POST'] })
  fastify.post('/api/__test/partner', { config: { crossSite: true } }, async () => ({ partner: true }))
}
