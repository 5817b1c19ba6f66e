import type { FastifyInstance } from 'fastify'
import { pageRequestOf } from '../../../src/pages/page-request.ts'

/** The test build's own routes (served with COURIER_TEST_ROUTES), as a site's file of site/routes/ is. */
export default async function testApi(fastify: FastifyInstance) {
  fastify.get('/api/__test/hello', async () => ({ hello: 'world' }))
  fastify.post('/api/__test/echo', async (request) => ({ echo: request.body }))
  fastify.get('/api/__test/fail', async () => {
    throw new Error('a route of the site failed on purpose (test route)')
  })
  // Signs the visitor in as `{ user }`: the per-user test page (/__test/visitor) then names them.
  fastify.post<{ Body: { user: string } }>('/api/__test/sign-in', async (request, reply) => {
    await pageRequestOf(request, reply).session.signIn(request.body.user)
    return { signedIn: request.body.user }
  })
  // Ends the visitor's session.
  fastify.post('/api/__test/sign-out', async (request, reply) => {
    await pageRequestOf(request, reply).session.signOut()
    return { signedOut: true }
  })
  // Three a minute per client (docs/your-routes.md, rate limits).
  fastify.post('/api/__test/limited', { config: { rateLimit: { max: 3, timeWindow: 60_000 } } }, async () => ({
    counted: true,
  }))
  // Open to other sites' pages (docs/your-routes.md): the cross-site refusal lets it be.
  fastify.post('/api/__test/open', { config: { crossSite: true } }, async () => ({ open: true }))
}
