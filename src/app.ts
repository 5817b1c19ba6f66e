import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify'
import path from 'node:path'
import { pino, type Logger } from 'pino'
import type { Config, TrustProxy } from '../config/env.ts'
import { serverLimits } from '../config/server.ts'
import { revalidation } from '../config/content.ts'
import { AccessLogController } from './access-log.ts'
import { serverBuildStamp } from './build/build-stamp.ts'
import { handleConnectionError, refuseConnect } from './connection-errors.ts'
import { PlainErrorAnswers } from './error-format.ts'
import { generateRequestId, loggerOptions } from './logger.ts'
import { compileSchemasAfterListening, lazySchemaCompilers } from './lazy-schema-compilers.ts'
import { routeEveryMethod } from './method-not-allowed.ts'
import { loadSite, type Site } from './pages/site.ts'
import { ContentSource } from './content/content-source.ts'
import { Sender } from './delivery/send.ts'
import { caches } from '../config/caches.ts'
import accessLog from '../plugins/access-log.ts'
import clientErrors from '../plugins/client-errors.ts'
import compression from '../plugins/compression.ts'
import crossSite from '../plugins/cross-site.ts'
import siteRoutes from '../plugins/site-routes.ts'
import { loadSiteRoutes } from './site-routes.ts'
import sessions from '../plugins/sessions.ts'
import deploymentId from '../plugins/deployment-id.ts'
import drain from '../plugins/drain.ts'
import errors from '../plugins/errors.ts'
import health from '../plugins/health.ts'
import image from '../plugins/image.ts'
import imageWidths from '../plugins/image-widths.ts'
import contentImagesRoute from '../plugins/content-images.ts'
import loadShedding from '../plugins/load-shedding.ts'
import methodNotAllowed from '../plugins/method-not-allowed.ts'
import documents from '../plugins/documents.ts'
import pages from '../plugins/pages.ts'
import publicFiles from '../plugins/public-files.ts'
import readiness from '../plugins/readiness.ts'
import requestFilter, { type RequestFilterOptions } from '../plugins/request-filter.ts'
import * as siteFilter from '../site/request-filter.ts'
import sharedState from '../plugins/shared-state.ts'
import sitemap from '../plugins/sitemap.ts'
import tracing from '../plugins/tracing.ts'

export interface BuildOptions {
  /** A pino logger to log through (tests pass one writing to a captured stream). Default: JSON to stdout. */
  logger?: Logger
  /** Overrides of the server limits in config/server.ts (tests shorten time-outs). */
  limits?: Partial<Record<keyof typeof serverLimits, number>>
  /** The pages to serve instead of the configured site's (tests give loaders that fail or redirect). */
  site?: Site
  /** The site's own policy steps and redirects, instead of site/request-filter.ts's (tests add an auth gate). */
  requestFilter?: Pick<RequestFilterOptions, 'steps' | 'redirects'>
}

/** TRUST_PROXY for Fastify: a hop count becomes the function Fastify itself makes of one (its types omit numbers). */
function fastifyTrustProxy(value: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof value === 'number') return (_address, hop) => hop < value
  return typeof value === 'boolean' ? value : [...value]
}

/** What the plugins of one app share: made once by `buildApp`, handed to each that needs it. */
interface AppParts {
  config: Config
  limits: Record<keyof typeof serverLimits, number>
  site: Site
  content: ContentSource
  /** How every answer's bytes go on the wire, and the caches of that (src/delivery/send.ts, config/caches.ts). */
  sender: Sender
  /** The site's router, and the method table's (plugins/method-not-allowed.ts): both read a path the same way. */
  routerOptions: { ignoreTrailingSlash: boolean; maxParamLength: number }
  options: BuildOptions
}

/**
 * The Courier application: every plugin, in order, on one Fastify instance, ready for `inject` or `listen`.
 * Never listens itself.
 */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const limits = { ...serverLimits, ...options.limits }
  const site = options.site ?? (await loadSite(config.testRoutes))
  const logger: FastifyBaseLogger = options.logger ?? pino(loggerOptions(config.logLevel))
  const content = new ContentSource(config.contentDir, { log: logger })
  const routerOptions = { ignoreTrailingSlash: true, maxParamLength: limits.maxParamLength }
  const parts: AppParts = { config, limits, site, content, sender: new Sender(caches), routerOptions, options }
  const schemaCompilers = lazySchemaCompilers()
  const app = createInstance(parts, logger, schemaCompilers)
  // Once listening, the index of the guides is built, so the pages that list them find it ready (docs/content.md).
  app.addHook('onListen', function buildContentIndex(done) {
    content.warmIndex()
    done()
  })
  // The Markdown parser's thread ends with the app.
  app.addHook('onClose', async function closeContent() {
    await content.close()
  })
  // The answers of plugins/drain.ts, plugins/load-shedding.ts and of connection errors (src/error-format.ts).
  app.decorate('plainErrorAnswers', new PlainErrorAnswers(caches.plainErrorAnswers))
  app.server.on('connect', refuseConnect.bind(app))
  // Before any route: every method Node parses is one Fastify knows (bodyless), not only those it routes by default.
  routeEveryMethod(app)
  if (config.trustProxy === true) warnOfTrustingEveryPeer(app)
  // Listening first, then (a moment later, between requests) the route schemas no request has needed yet.
  compileSchemasAfterListening(app, schemaCompilers, limits.schemaWarmUpDelayMs)
  await registerFrontPlugins(app, parts)
  await registerRoutes(app, parts)
  return app
}

/** The Fastify instance with Courier's server limits, logger, request ids, proxy trust and error answers. */
function createInstance(
  { config, limits, routerOptions }: AppParts,
  logger: FastifyBaseLogger,
  { compilersFactory }: ReturnType<typeof lazySchemaCompilers>,
): FastifyInstance {
  const accessLogController = new AccessLogController()
  return Fastify({
    loggerInstance: logger,
    schemaController: { compilersFactory },
    logController: accessLogController,
    requestIdHeader: false,
    genReqId: generateRequestId,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    bodyLimit: limits.bodyLimitBytes,
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.connectionTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // plugins/drain.ts answers requests that arrive while closing, from the status-title table.
    return503OnClosing: false,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: limits.timeoutCheckIntervalMs,
      maxHeaderSize: limits.maxHeaderSizeBytes,
    },
    routerOptions,
    // Requests Node's parser rejects (431, 408, 400) are answered by the status-title table too.
    clientErrorHandler: handleConnectionError,
    // Router-level failures (malformed %-escapes, over-long parameters) reach no route, so no hook runs for them:
    // echo the request id, take the request filter's decision and write the access line here, and answer through
    // the same error handler (and error page) as the rest.
    frameworkErrors: function routeFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
      const app = request.server
      reply.header('x-request-id', request.id)
      app.judgeRefusedRequest(request, reply)
      reply.raw.once('finish', () => {
        accessLogController.requestCompleted(null, request, reply)
        app.metrics?.responseFinished(request, reply)
      })
      return app.errorHandler(error, request, reply)
    },
  })
}

function warnOfTrustingEveryPeer(app: FastifyInstance): void {
  app.log.warn(
    {
      consequence:
        'the client address is whatever X-Forwarded-For says: a client that sets it itself gets past the ' +
        `client-report rate limit and the revalidation budgets (${revalidation.maxFailuresPerWindow} failed calls per ` +
        `${revalidation.windowMs / 1000} s per address: it can guess ` +
        "REVALIDATE_TOKEN without limit, and spend the operator's address's budget to lock its calls out, " +
        "fleet-wide with REDIS_URL) and names any address in the access log; set TRUST_PROXY to the proxies' " +
        'addresses or a hop count instead',
    },
    'TRUST_PROXY=true trusts every peer: X-Forwarded-For is taken from any client',
  )
}

/** What every request meets before its route: its span, metrics, access line, coding, errors, shedding, filter. */
async function registerFrontPlugins(
  app: FastifyInstance,
  { config, limits, site, sender, routerOptions, options }: AppParts,
) {
  await app.register(deploymentId, {
    distDir: config.distDir,
    dev: config.dev,
    expected: config.deploymentId,
    builtFor: serverBuildStamp?.deploymentId,
  })
  // Before every hook and route: each request gets its span first, and every route is traced.
  await app.register(tracing, { config: config.tracing, trustProxy: config.trustProxy })
  // Only with METRICS_PORT, and before every route: its onResponse hook times them all; without it prom-client is
  // never loaded.
  if (config.metricsPort !== undefined) {
    const { default: metrics } = await import('../plugins/metrics.ts')
    await app.register(metrics, { host: config.metricsHost, port: config.metricsPort, rootDir: config.rootDir })
  }
  await app.register(accessLog)
  await app.register(compression, { sender })
  await app.register(errors)
  await app.register(drain, { keepAliveTimeoutMs: limits.drainKeepAliveTimeoutMs })
  // Before the request filter and every route: a shed request costs no other work.
  await app.register(loadShedding, {
    maxEventLoopDelayMs: limits.maxEventLoopDelayMs,
    sampleIntervalMs: limits.loadSampleIntervalMs,
    retryAfterSeconds: limits.overloadRetryAfterSeconds,
  })
  // Before the request filter: a site's policy step may read the session (a sign-in gate, docs/request-filter.md).
  await app.register(sessions, { secret: config.sessionSecret, redisUrl: config.sessionRedisUrl })
  await app.register(requestFilter, {
    hsts: config.hsts,
    pagePatterns: site.pages.map((page) => page.path),
    redirects: siteFilter.redirects,
    steps: siteFilter.steps,
    ...options.requestFilter,
  })
  // Before any route's body is read: an unsafe method from another site's page is refused first.
  await app.register(crossSite, { siteUrl: config.siteUrl })
  // After the request filter's hook, before the plugins that enter their paths in the table.
  await app.register(methodNotAllowed, { routerOptions })
}

/** Every route: health, shared state, client reports, the sitemap, public files, images, documents and pages. */
async function registerRoutes(app: FastifyInstance, { config, limits, site, content, sender }: AppParts) {
  await app.register(health, { contentReads: () => content.readStats, contentIndex: () => content.indexStats })
  await app.register(readiness)
  await app.register(sharedState, { redisUrl: config.redisUrl })
  await app.register(clientErrors)
  await app.register(sitemap, { siteUrl: config.siteUrl, pages: site.publicPages, content })
  await app.register(publicFiles, { root: path.join(config.rootDir, 'client', 'public') })
  await app.register(imageWidths)
  await app.register(contentImagesRoute, { content, allowSvg: config.imagesAllowSvg })
  await app.register(image, {
    publicRoot: path.join(config.rootDir, 'client', 'public'),
    content,
    cacheDir: config.imageCacheDir,
    allowSvg: config.imagesAllowSvg,
  })
  await app.register(documents, {
    root: config.rootDir,
    distDir: config.distDir,
    dev: config.dev,
    pageIds: site.pages.map((page) => page.id),
    renderTimeoutMs: limits.renderTimeoutMs,
    holeTurns: { budgetMs: limits.holeTurnBudgetMs, backlogMs: limits.holeBacklogMs },
    // A server that keeps no static page (the bound at 0) keeps no document at all: every document streams.
    keepDocuments: limits.staticPageCacheEntries > 0,
    sender,
  })
  // With the revalidate route (only with REVALIDATE_TOKEN; with REDIS_URL every instance hears the others').
  const { staticPageCacheEntries, staticPageCacheBytes } = limits
  const revalidateToken = config.revalidateToken
  await app.register(pages, { site, content, staticPageCacheEntries, staticPageCacheBytes, sender, revalidateToken })
  // Last: the site's own routes and plugins, each in a context of its own (docs/your-routes.md).
  await app.register(siteRoutes, { routes: await loadSiteRoutes(config.testRoutes) })
}
