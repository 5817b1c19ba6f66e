import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isReadable, type Readable } from 'node:stream'
import { compression } from '../config/compression.ts'
import type { Sender } from '../src/delivery/send.ts'

export interface CompressionOptions {
  /** The one place codings are negotiated (src/delivery/send.ts): the one `buildApp` makes. */
  sender: Sender
}

function isStream(payload: unknown): payload is Readable {
  return typeof (payload as Readable | null)?.pipe === 'function' && isReadable(payload as Readable) !== false
}

/**
 * Compression of what nobody encoded (docs/compression.md): text answers of 1 kB or more (dynamic page data, JSON
 * errors, sitemaps, robots.txt), per request, in the coding the sender negotiates. One rule before that: an answer
 * that carries a `Content-Encoding` already passes as it is (everything the sender sent, and built assets). Streams
 * pass too (files @fastify/static serves, compressed at build time where worth it); images and fonts are never touched.
 */
async function responseCompression(fastify: FastifyInstance, options: CompressionOptions) {
  const { sender } = options
  fastify.addHook(
    'onSend',
    async function compressAnswer(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
      if (payload === null || payload === undefined || reply.statusCode === 204 || reply.statusCode === 304) {
        return payload
      }
      if (reply.hasHeader('content-encoding')) return payload
      const type = reply.getHeader('content-type')
      if (typeof type !== 'string' || !compression.compressibleType.test(type)) return payload
      if (isStream(payload)) return payload
      if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return payload
      return sender.compressPerRequest(request, reply, payload) ?? payload
    },
  )
}

export default fp(responseCompression, { name: 'courier-compression', fastify: '5.x' })
