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

type ConstraintStrategy = Parameters<FastifyInstance['addConstraintStrategy']>[0]
type RouteHandler = Parameters<ReturnType<ConstraintStrategy['storage']>['set']>[1]

const publicFileConstraintName = 'courierPublicFile'
/** The constraint's one value: what a request derives unless the index knows its path names no file. */
const mayBeFile = 'may-be-a-file'

/**
 * The router's constraint on the wildcard route: a request whose path the index knows missing derives no value, so
 * the route is no candidate for it and the router finds no route: Fastify's not-found handler answers it at once, as
 * any path no route takes, without the wildcard route's hooks and a `reply.callNotFound` after them. Derived for
 * every request before it is routed: a few string checks and one look-up in a set.
 */
function publicFileConstraint(index: PublicFileIndex): ConstraintStrategy {
  return {
    name: publicFileConstraintName,
    storage() {
      const handlers = new Map<unknown, RouteHandler>()
      return {
        get: (value: unknown) => handlers.get(value) ?? null,
        set: (value: unknown, handler: RouteHandler) => void handlers.set(value, handler),
      }
    },
    deriveConstraint: (request) => (index.knowsMissing(pathOf(request.url ?? '/')) ? undefined : mayBeFile),
  }
}

/**
 * Public files at their own paths (`/favicon.ico`, `/images/...`), served by @fastify/static's wildcard route: a file
 * added while the server runs is served at once and one removed is a 404. A path the folder surely does not hold
 * (known from an index a watcher keeps, src/public-file-index.ts) is kept from that route by the router itself: a
 * constraint of the route (find-my-way's custom constraint strategy, derived from each request before it is routed)
 * leaves such a path to no route, so it gets the not-found handler straight away, as any path no route takes.
 * Routes of their own win over the wildcard (the router prefers a static or parametric path): `/robots.txt` and
 * the sitemaps stay plugins/sitemap.ts's even when the folder holds a file of that name. A path that names no file,
 * a folder or a dotfile reaches the not-found handler.
 */
async function publicFiles(fastify: FastifyInstance, options: PublicFilesOptions) {
  const root = path.resolve(options.root)
  // A path that names no file goes to the not-found handler without a look at the disk (publicFileConstraint).
  const index = new PublicFileIndex(root, fastify.log)
  index.start()
  fastify.addHook('onClose', function stopWatching(_instance, done) {
    index.close()
    done()
  })
  fastify.addConstraintStrategy(publicFileConstraint(index))
  await fastify.register(fastifyStatic, {
    root,
    // Only paths that may name a file: the others reach no route (publicFileConstraint).
    constraints: { [publicFileConstraintName]: mayBeFile },
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
