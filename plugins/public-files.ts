import fp from 'fastify-plugin'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance } from 'fastify'

export interface PublicFilesOptions {
  /** The folder served at `/`: favicon.ico, images/. */
  root: string
}

/**
 * Public files at their own paths (`/favicon.ico`, `/images/...`), served by @fastify/static: one route per file,
 * found at start-up, so unknown paths reach the not-found handler and dotfiles and folders are never served.
 */
async function publicFiles(fastify: FastifyInstance, options: PublicFilesOptions) {
  await fastify.register(fastifyStatic, {
    root: options.root,
    prefix: '/',
    wildcard: false,
    index: false,
    list: false,
    dotfiles: 'deny',
    redirect: false,
    // Public files keep their names across deployments: cache briefly, revalidate with the ETag.
    cacheControl: false,
    setHeaders(reply) {
      reply.header('cache-control', 'public, max-age=3600, must-revalidate')
    },
  })
}

// Encapsulated: @fastify/vite registers @fastify/static too, and reply.sendFile may be decorated once per scope.
export default fp(publicFiles, { name: 'courier-public-files', fastify: '5.x', encapsulate: true })
