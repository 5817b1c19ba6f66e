import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { accessLine } from '../src/access-log.ts'

/**
 * The request id echoed back as `x-request-id`, so a client can quote it; and the access line of a response the
 * client abandoned before it finished (Fastify reports only finished ones to AccessLogController, src/access-log.ts).
 */
async function accessLog(fastify: FastifyInstance) {
  fastify.addHook('onRequest', async function trackRequest(request: FastifyRequest, reply: FastifyReply) {
    reply.header('x-request-id', request.id)
    reply.raw.once('close', function logAbandoned() {
      if (reply.raw.writableEnded || reply.raw.errored) return
      request.log.info({ ...accessLine(request, reply), aborted: true }, 'request completed')
    })
  })
}

export default fp(accessLog, { name: 'courier-access-log', fastify: '5.x' })
