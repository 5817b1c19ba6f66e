import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'

/**
 * A route opened to one partner site, as docs/your-routes.md says for other origins: @fastify/cors, registered under
 * the route's own prefix (its `OPTIONS *` preflight route then covers that prefix only), answers the partner's
 * preflight, and `crossSite: true` lets the partner's POST through the refusal.
 */
export default async function testCors(fastify: FastifyInstance) {
  await fastify.register(
    async function partnerApi(partner) {
      await partner.register(cors, { origin: 'https://partner.example', methods: ['POST'] })
      partner.post('/orders', { config: { crossSite: true } }, async () => ({ partner: true }))
    },
    { prefix: '/api/__test/partner' },
  )
}
