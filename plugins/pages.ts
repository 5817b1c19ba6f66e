import fp from 'fastify-plugin'
import path from 'node:path'
import fastifyVite from '@fastify/vite'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { HtmlFunction, RenderFunction } from '@fastify/vite'
import type { PageDefinition, RouteParams } from '../client/routes.ts'
import { assetBase } from '../src/render/template.ts'
import {
  createRenderDocument,
  createTemplateFunction,
  sendDocument,
  type ClientModule,
} from '../src/render/renderer.ts'
import { errors } from '../src/errors.ts'
import { methodNotAllowedRoute } from '../src/method-not-allowed.ts'
import { pageServerSide } from '../src/pages/loaders.ts'
import { readPagePreloads } from '../src/render/page-preloads.ts'
import { pages as pageTable } from '../client/routes.ts'

export interface PagesOptions {
  /** Project root: holds vite.config.ts and package.json. */
  root: string
  /** Build output (production): holds vite.config.json, client/, server/. */
  distDir: string
  /** Serve through Vite's dev server (HMR) instead of the build. */
  dev: boolean
  /** Register the test-only pages (/__test/...). */
  testRoutes: boolean
  renderTimeoutMs: number
  /** Static documents rendered once and kept, at most this many (config/server.ts); none in development. */
  documentCacheEntries: number
}

const pageIds = pageTable.map((page) => page.id)

/** Built assets have content-hashed names: cache them for a year, never revalidate (DESIGN.md section 2). */
const immutableAssetCacheControl = 'public, max-age=31536000, immutable'

function createPageHandler(page: PageDefinition, deploymentId: string) {
  const serverSide = pageServerSide[page.id] ?? {}
  return async function renderPage(request: FastifyRequest, reply: FastifyReply) {
    const params = (request.params ?? {}) as RouteParams
    // A static page is one document per deployment and path (rendered once, like its page data): its loader sees no
    // query, so no query can change what is kept.
    const query = page.kind === 'static' ? {} : (request.query as Record<string, unknown>)
    const result = serverSide.load ? await serverSide.load({ params, query, deploymentId }) : { props: {} }
    if ('notFound' in result) return reply.callNotFound()
    if ('redirect' in result) {
      return reply.redirect(result.redirect.destination, result.redirect.permanent ? 308 : 307)
    }
    return sendDocument(reply, { type: 'page', page, params, data: result.props })
  }
}

/** Methods a page answers; any other gets 405 with `Allow: GET, HEAD`. */
const pageMethods = ['GET', 'HEAD'] as const

/**
 * Pages: one GET route per entry of the page table, streamed by React through Fastify. @fastify/vite brings the
 * client in (the build in production, Vite's dev server with HMR in development) and serves the built assets.
 */
async function pages(fastify: FastifyInstance, options: PagesOptions) {
  const { root, distDir, dev, testRoutes, renderTimeoutMs, documentCacheEntries } = options
  if (!Number.isInteger(renderTimeoutMs) || renderTimeoutMs <= 0) {
    throw new errors.OptionInvalid('renderTimeoutMs', 'a whole number of milliseconds above 0')
  }
  if (!Number.isInteger(documentCacheEntries) || documentCacheEntries < 0) {
    throw new errors.OptionInvalid('documentCacheEntries', 'a whole number of entries, 0 or more')
  }
  // Decorated by courier-deployment-id before this plugin registers, and fixed for the life of the process.
  const deploymentId = fastify.deploymentId
  const preloadsFor = dev ? undefined : await readPagePreloads(path.join(distDir, 'client'), pageIds, deploymentId)
  /** The server build: @fastify/vite adds its chunks folder as a second root of /_next/static/chunks/ if it exists. */
  const serverBuildDir = path.join(distDir, 'server') + path.sep
  /** The production build's reply.html and reply.render, as @fastify/vite decorates replies with them. */
  const documentFunctions: { html?: HtmlFunction; render?: RenderFunction } = {}

  await fastify.register(fastifyVite, {
    root,
    dev,
    // @fastify/vite looks for vite.config.json beside the client folder it is given.
    distDir: path.join(distDir, 'client'),
    fastifyStaticOptions: {
      // Cache-Control is set whole below; @fastify/static's own maxAge would not say `public`.
      cacheControl: false,
      // A build never changes in place: strong validators are the content hashes in the names.
      etag: false,
      lastModified: false,
      setHeaders(reply) {
        reply.header('cache-control', immutableAssetCacheControl)
      },
      // Server code is never public: a name only the SSR build has (its chunks) is a 404, not the server's source.
      allowedPath(_pathname: string, root: string | undefined) {
        return root === undefined || !path.resolve(root).startsWith(serverBuildDir)
      },
      // The build writes no dotfiles into its chunks; one that appears there is not the site's to serve.
      dotfiles: 'deny',
    },
    // reply.html and reply.render carry Courier's own signatures (src/render/renderer.ts), hence the casts.
    renderer: {
      createHtmlFunction(source: string) {
        documentFunctions.html = createTemplateFunction(source, deploymentId) as unknown as HtmlFunction
        return documentFunctions.html
      },
      async createRenderFunction(client) {
        documentFunctions.render = createRenderDocument(client as unknown as ClientModule, deploymentId, {
          renderTimeoutMs,
          // In development the template and the client change with every edit: nothing is kept.
          documentCacheEntries: dev ? 0 : documentCacheEntries,
          ...(preloadsFor ? { preloadsFor } : {}),
        }) as unknown as RenderFunction
        return documentFunctions.render
      },
      createRouteHandler: ({ route }) => createPageHandler(route as unknown as PageDefinition, deploymentId),
      createRoute({ route, handler }, scope) {
        const page = route as unknown as PageDefinition | undefined
        if (!page?.path || !handler || (page.testOnly && !testRoutes)) return
        scope.route({ method: 'GET', url: page.path, handler, config: { pageId: page.id } })
        scope.route(methodNotAllowedRoute(scope, page.path, pageMethods))
      },
    },
  })
  await fastify.vite.ready()

  // Requests the router refuses (a malformed escape) get a bare Reply without @fastify/vite's decorators; buildApp's
  // frameworkErrors lends them the build's render functions so their error page is the site's own. In development
  // the functions change with every edit, and those requests keep the plain error page.
  fastify.decorate('lendDocumentRenderer', function lendDocumentRenderer(reply: FastifyReply) {
    if (dev || typeof reply.render === 'function' || !documentFunctions.html || !documentFunctions.render) return
    Object.assign(reply, { html: documentFunctions.html, render: documentFunctions.render })
  })
  fastify.log.debug({ dev, assetBase }, 'pages ready')
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Gives a reply made outside any route the render functions of the build (see above). */
    lendDocumentRenderer?: (reply: FastifyReply) => void
  }
  interface FastifyContextConfig {
    /** Set on page routes: the id of the page in the page table. */
    pageId?: string
  }
}

export default fp(pages, { name: 'courier-pages', fastify: '5.x', dependencies: ['courier-deployment-id'] })
