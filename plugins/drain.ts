import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Socket } from 'node:net'
import { errors } from '../src/errors.ts'

const closingError = new errors.ServerClosing()

export interface DrainOptions {
  /** Keep-alive time-out while draining (serverLimits.drainKeepAliveTimeoutMs). */
  keepAliveTimeoutMs: number
}

/**
 * The drain while the server closes (SIGTERM, src/server.ts): requests in flight finish; a request that arrives
 * meanwhile on a kept-alive connection gets 503 from the status-title table with `Connection: close`, before any
 * other work (plain HTML or JSON: no render while draining); and idle connections close after a short keep-alive
 * time-out rather than at once (so a request racing the signal gets that 503, not a reset) or after the full one. New
 * connections are refused by the closed listener. Fastify's own drain answer (return503OnClosing) is off in buildApp:
 * it answers JSON on every path.
 */
async function drain(fastify: FastifyInstance, options: DrainOptions) {
  const { keepAliveTimeoutMs } = options
  if (!Number.isInteger(keepAliveTimeoutMs) || keepAliveTimeoutMs <= 0) {
    throw new errors.OptionInvalid('keepAliveTimeoutMs', 'a whole number of milliseconds above 0')
  }
  let closing = false
  const connections = new Set<Socket>()
  fastify.server.on('connection', function trackConnection(socket: Socket) {
    connections.add(socket)
    socket.once('close', () => connections.delete(socket))
  })

  fastify.addHook('preClose', function startDraining(done) {
    closing = true
    const server = fastify.server
    // A connection whose response is still streaming (its headers, sent before the signal, said keep-alive) stays
    // open this long once the response is done, then closes by itself.
    server.keepAliveTimeout = Math.min(server.keepAliveTimeout, keepAliveTimeoutMs)
    // Node's server.close() destroys the idle keep-alive connections at once, racing a client that is sending on one
    // just then (it sees a reset). They get the short keep-alive instead: a request in time is answered 503 + close.
    server.closeIdleConnections = function shortenIdleConnections() {
      for (const socket of connections) {
        // Node's own mark of a response in flight on a socket (what closeIdleConnections checks too).
        if (!(socket as Socket & { _httpMessage?: unknown })._httpMessage) socket.setTimeout(keepAliveTimeoutMs)
      }
    }
    done()
  })

  fastify.addHook('onRequest', function refuseWhileClosing(request: FastifyRequest, reply: FastifyReply, done) {
    if (!closing) return done()
    fastify.metrics?.requestShed('draining')
    const answer = fastify.plainErrorAnswers.answer(request.url, 503, closingError.code)
    reply
      .code(503)
      .header('connection', 'close')
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
    return reply.type(answer.contentType).send(answer.body)
  })

  // A response that started before the signal: Connection: close when its headers are still to go.
  fastify.addHook('onSend', function closeAfterResponse(_request, reply, payload, done) {
    if (closing && !reply.raw.headersSent) reply.header('connection', 'close')
    done(null, payload)
  })
}

export default fp(drain, { name: 'courier-drain', fastify: '5.x' })
