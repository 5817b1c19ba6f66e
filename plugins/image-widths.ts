import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { images } from '../config/images.ts'

const widthList = { type: 'array', items: { type: 'integer' } } as const

const imageWidthsResponse = {
  200: {
    type: 'object',
    properties: {
      deviceSizes: widthList,
      imageSizes: widthList,
      qualities: widthList,
      minimumCacheTTL: { type: 'integer' },
    },
    required: ['deviceSizes', 'imageSizes', 'qualities', 'minimumCacheTTL'],
  },
} as const

/**
 * GET /api/image-widths: the widths and qualities (`q`) the optimizer accepts and its shortest cache lifetime, from
 * config/images.ts, for tools that build image URLs outside the React app. The answer changes only with a deployment.
 */
async function imageWidths(fastify: FastifyInstance) {
  const body = {
    deviceSizes: images.deviceSizes,
    imageSizes: images.imageSizes,
    qualities: images.qualities,
    minimumCacheTTL: images.minimumCacheTTL,
  }
  fastify.get(
    '/api/image-widths',
    {
      schema: { response: imageWidthsResponse },
    },
    async function listImageWidths(_request, reply) {
      reply.header('cache-control', 'public, max-age=60, must-revalidate')
      return body
    },
  )
}

export default fp(imageWidths, { name: 'courier-image-widths', fastify: '5.x' })
