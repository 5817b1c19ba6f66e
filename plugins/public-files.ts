import fp from 'fastify-plugin'
import fastifyStatic from '@fastify/static'
import path from 'node:path'
import type { FastifyInstance } from 'fastify'
import { PublicFileIndex } from '../src/public-file-index.ts'
import { pathOf } from '../src/request-path.ts'

export interface PublicFilesOptions {
  /** The folder served at `/`: favicon.ico, images/. */
  root: string
}

/**
 * Public files at their own paths (`/favicon.ico`, `/images/...`), served by @fastify/static's wildcard route: a file
 * added while the server runs is served at once and one removed is a 404. Paths the folder surely does not hold are
 * answered before it, from an index a watcher keeps (src/public-file-index.ts).
 * Routes of their own win over the wildcard (the router prefers a static or parametric path): `/robots.txt` and
 * the sitemaps stay plugins/sitemap.ts's even when the folder holds a file of that name. A path that names no file,
 * a folder or a dotfile reaches the not-found handler.
 */
async function publicFiles(fastify: FastifyInstance, options: PublicFilesOptions) {
  const root = path.resolve(options.root)
  // A path that names no file goes to the not-found handler without a look at the disk (src/public-file-index.ts).
  const index = new PublicFileIndex(root, fastify.log)
  index.start()
  fastify.addHook('onClose', function stopWatching(_instance, done) {
    index.close()
    done()
  })
  fastify.addHook('preHandler', function answerMissing(request, reply, done) {
    if (index.knowsMissing(pathOf(request.url))) return reply.callNotFound()
    done()
  })
  await fastify.register(fastifyStatic, {
    root,
    prefix: '/',
    index: false,
    list: false,
    // 'ignore' answers a dotfile as missing (404), as if it were not there; 'deny' would say it exists (403).
    dotfiles: 'ignore',
    redirect: false,
    // A folder (`/images/`) is no file: the not-found page, as for any other path that names none (@fastify/static
    // would answer 403, saying the folder exists). A name it cannot check the spelling of stays its 403.
    allowedPath: (pathname) => !pathname.endsWith('/'),
    // Public files keep their names across deployments: cache briefly, revalidate with the ETag.
    cacheControl: false,
    setHeaders(reply) {
      reply.header('cache-control', 'public, max-age=3600, must-revalidate')
    },
  })
}

// Encapsulated: @fastify/vite registers @fastify/static too, and reply.sendFile may be decorated once per scope.
export default fp(publicFiles, { name: 'courier-public-files', fastify: '5.x', encapsulate: true })
