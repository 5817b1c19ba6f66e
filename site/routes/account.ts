import type { FastifyInstance, FastifyRequest } from 'fastify'
import { pageRequestOf } from '../../src/pages/page-request.ts'
import { closeSiteStores, siteStore } from '../data/site-store.ts'

interface SignedIn {
  account?: string
}

/**
 * The signed-in reader's own data as JSON (`GET /api/account`): their name and feedback. `/api/` is outside the
 * request filter, so the route guards itself: no signed-in session (no cookie, or a forged, tampered, expired or
 * ended one) is a 401.
 */
export default async function accountApi(fastify: FastifyInstance) {
  fastify.decorateRequest('account', undefined)
  // The site's shared store (SITE_REDIS_URL) closes with the server.
  fastify.addHook('onClose', closeSiteStores)
  fastify.addHook('onRequest', async function requireSession(request: FastifyRequest & SignedIn, reply) {
    request.account = await pageRequestOf(request, reply).session.userId()
    if (request.account === undefined) {
      return reply.code(401).header('cache-control', 'private, no-store').send({
        statusCode: 401,
        error: 'Unauthorized',
        message: 'Sign in first: /sign-in',
      })
    }
  })
  fastify.get('/api/account', async (request: FastifyRequest & SignedIn, reply) => {
    const name = request.account!
    reply.header('cache-control', 'private, no-store').header('vary', 'Cookie')
    return { name, feedback: await siteStore().feedbackOf(name) }
  })
}
