import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isReadable, type Readable } from 'node:stream'
import { compression } from '../config/compression.ts'
import { codingForBody, compressBody, compressStream, pieceCodings, preferredCodings } from '../src/compression/compress.ts'
import { negotiateCoding } from '../src/compression/negotiate.ts'
import { addVary } from '../src/compression/vary.ts'


function isStream(payload: unknown): payload is Readable {
  return typeof (payload as Readable | null)?.pipe === 'function' && isReadable(payload as Readable) !== false
}

/**
 * Compression of what no route compressed itself (README "Compression"): text answers of 1 kB or more (dynamic page
 * data, JSON errors, sitemaps, robots.txt, documents that are not kept) in brotli or gzip as `Accept-Encoding`
 * allows, per request; streamed documents stay streamed, flushed as React writes. Answers that carry a
 * `Content-Encoding` already pass as they are: built assets (compressed at build time, served by @fastify/static),
 * kept page data and kept documents (compressed once, src/pages/, src/render/). Images and fonts are never touched.
 */
async function responseCompression(fastify: FastifyInstance) {
  fastify.addHook('onSend', async function compressAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    if (payload === null || payload === undefined || reply.statusCode === 204 || reply.statusCode === 304) return payload
    if (reply.hasHeader('content-encoding')) return payload
    const type = reply.getHeader('content-type')
    if (typeof type !== 'string' || !compression.compressibleType.test(type)) return payload
    const acceptEncoding = request.headers['accept-encoding']
    if (isStream(payload)) {
      // Streams other than documents are files @fastify/static serves: compressed at build time where worth it.
      if (!type.startsWith('text/html')) return payload
      addVary(reply, 'accept-encoding')
      const coding = negotiateCoding(acceptEncoding, pieceCodings)
      if (coding === 'identity') return payload
      reply.header('content-encoding', coding).removeHeader('content-length')
      return compressStream(payload, coding)
    }
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload
    addVary(reply, 'accept-encoding')
    const coding = codingForBody(acceptEncoding, Buffer.byteLength(payload), preferredCodings)
    if (coding === 'identity') return payload
    reply.header('content-encoding', coding).removeHeader('content-length')
    return compressBody(payload, coding, 'perRequest')
  })
}

export default fp(responseCompression, { name: 'courier-compression', fastify: '5.x' })
