import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isReadable, type Readable } from 'node:stream'
import { compression } from '../config/compression.ts'
import { codingForBody, compressBody } from '../src/compression/compress.ts'
import { addVary } from '../src/compression/vary.ts'


function isStream(payload: unknown): payload is Readable {
  return typeof (payload as Readable | null)?.pipe === 'function' && isReadable(payload as Readable) !== false
}

/**
 * Compression of what no route compressed itself (docs/compression.md): text answers of 1 kB or more (dynamic page
 * data, JSON errors, sitemaps, robots.txt) in brotli, gzip or zstd as `Accept-Encoding` allows, per request. Answers that
 * carry a `Content-Encoding` already pass as they are: built assets (compressed at build time, served by
 * @fastify/static or src/render/zstd-assets.ts), kept page data and kept documents (compressed once, src/pages/, src/render/); so do streams:
 * streamed documents, which the renderer codes as they stream, and files. Images and fonts are never touched.
 */
async function responseCompression(fastify: FastifyInstance) {
  fastify.addHook('onSend', async function compressAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    if (payload === null || payload === undefined || reply.statusCode === 204 || reply.statusCode === 304) return payload
    if (reply.hasHeader('content-encoding')) return payload
    const type = reply.getHeader('content-type')
    if (typeof type !== 'string' || !compression.compressibleType.test(type)) return payload
    const acceptEncoding = request.headers['accept-encoding']
    // Streams are streamed documents, which the renderer codes itself (src/render/renderer.ts), and files
    // @fastify/static serves, compressed at build time where worth it.
    if (isStream(payload)) return payload
    if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload
    addVary(reply, 'accept-encoding')
    const coding = codingForBody(acceptEncoding, Buffer.byteLength(payload), compression.codingPreference.perRequest)
    if (coding === 'identity') return payload
    reply.header('content-encoding', coding).removeHeader('content-length')
    return compressBody(payload, coding, 'perRequest')
  })
}

export default fp(responseCompression, { name: 'courier-compression', fastify: '5.x' })
