import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { PageAnswer } from '../src/common/page-data.ts'
import type { RouteParams } from '../src/common/page-types.ts'
import { createPageMatcher } from '../src/common/match.ts'
import { errors } from '../src/errors.ts'
import { hostname } from 'node:os'
import { regeneration } from '../config/content.ts'
import { assignDigest } from '../src/digest.ts'
import { PageVersions } from '../src/pages/page-versions.ts'
import type { PageVersion } from '../src/pages/page-version.ts'
import type { RegenerationReport, RegenerationStats } from '../src/pages/regeneration.ts'
import { pageRequestOf } from '../src/pages/page-request.ts'
import { markFreshness, redirectStatus, type PartialResult } from '../src/pages/page-answers.ts'
import type { PartialPage, ServerPage, Site } from '../src/pages/site.ts'
import { loadLiveData } from '../src/pages/partial-page.ts'
import { serverLimits } from '../config/server.ts'
import type { ContentSource } from '../src/content/content-source.ts'
import type { KeptDocumentSlot } from '../src/render/document-cache.ts'
import { PageDocuments } from '../src/render/page-documents.ts'
import { observePageSpans, traceRegeneration } from '../src/tracing/page-spans.ts'
import { tracingOf, type Tracing } from '../src/tracing/tracing.ts'
import pageData from './page-data.ts'
import pageActions from './page-actions.ts'
import revalidate from './revalidate.ts'
import type { Sender } from '../src/delivery/send.ts'
import type { PageShare } from '../src/pages/page-share.ts'
import type { SharedRedis } from '../src/shared-state/redis.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** What this instance's page regenerations are doing (`/api/health`, the revalidate answer). */
    pageRegenerations?: () => RegenerationStats
  }
}

export interface PagesOptions {
  /** The pages to serve, loaded once at start-up (src/pages/site.ts). */
  site: Site
  /** The site's content, which loaders read at run time (CONTENT_DIR). */
  content: ContentSource
  /** `static` page instances kept per deployment, at most this many (config/server.ts)... */
  staticPageCacheEntries: number
  /** ...and at most this many bytes of them, by their estimate (config/server.ts; default: no bound by bytes). */
  staticPageCacheBytes?: number
  /** How kept page data goes on the wire (src/delivery/send.ts): the one `buildApp` makes. */
  sender: Sender
  /** REVALIDATE_TOKEN, for `POST /api/revalidate` (plugins/revalidate.ts, registered here with the page versions). */
  revalidateToken?: string | undefined
}

/** Methods a page answers; any other gets 405 with `Allow: GET, HEAD` (and `POST` where it has an action). */
const pageMethods = ['GET', 'HEAD'] as const
const actionPageMethods = ['GET', 'HEAD', 'POST'] as const

/** One regeneration's end: its log line, its count and time, its span. */
function regenerationReporter(fastify: FastifyInstance, tracing: Tracing, instance: string) {
  const metrics = fastify.metrics
  return function reportRegeneration(report: RegenerationReport) {
    const { page, path, reason, durationMs, outcome, loaderRan, error } = report
    const fields = { page: page.id, path, reason, durationMs: Math.round(durationMs * 10) / 10, instance, loaderRan }
    metrics?.pageRegenerated(reason, outcome, durationMs / 1000)
    if (outcome !== 'failed') {
      traceRegeneration(tracing, report, fastify.deploymentId)
      return fastify.log.info({ ...fields, outcome }, 'page regenerated')
    }
    const { digest } = assignDigest(error, 'regeneration')
    traceRegeneration(tracing, report, fastify.deploymentId, digest)
    const retryInMs = regeneration.retryBackoffMs
    // Once per page at error level: the same page failing again, until it succeeds, is a debug line (the counter and
    // /api/health count every failure).
    if (report.repeated) return fastify.log.debug({ ...fields, digest, retryInMs }, 'page regeneration failed again')
    fastify.log.error({ ...fields, err: error, digest, retryInMs }, 'page regeneration failed')
  }
}

/**
 * The pages' versions, one set per app: with REDIS_URL the fleet shares them (one loader run per page instance, the
 * same bytes everywhere); regenerations reported; page spans observing their loads (src/tracing/page-spans.ts) while
 * tracing is on, nothing listening otherwise.
 */
async function createPageVersions(fastify: FastifyInstance, options: PagesOptions, tracing: Tracing) {
  const redis = fastify.hasDecorator('sharedRedis') ? fastify.sharedRedis : null
  const share = redis ? await sharedPages(fastify, redis) : undefined
  const versions = new PageVersions({
    deploymentId: fastify.deploymentId,
    ...(share ? { share } : {}),
    matchPage: createPageMatcher(options.site.pages),
    content: options.content,
    maxStaticEntries: options.staticPageCacheEntries,
    ...(options.staticPageCacheBytes === undefined ? {} : { maxStaticBytes: options.staticPageCacheBytes }),
    onEvict: () => fastify.metrics?.keptPageEvicted(),
    loaderTimeoutMs: regeneration.loaderTimeoutMs,
    retryBackoffMs: regeneration.retryBackoffMs,
    onRegeneration: regenerationReporter(fastify, tracing, `${hostname()}:${process.pid}`),
  })
  if (tracing.enabled) {
    const stopObserving = observePageSpans(tracing, versions)
    fastify.addHook('onClose', async function stopPageSpans() {
      stopObserving()
    })
  }
  return versions
}

/**
 * Pages: the server's one copy of the page table, served two ways from one loader run. `GET <page path>` answers the
 * page's document (plugins/documents.ts renders it), `GET /_next/data/<id>/<page path>.json` its page data
 * (plugins/page-data.ts). A `static` page instance is loaded once per deployment and its document rendered once;
 * a `dynamic` page is loaded once per request. Its page versions (src/pages/page-versions.ts) are made here, once,
 * and handed to the data route and the revalidate route (plugins/revalidate.ts) as their options.
 */
async function pages(fastify: FastifyInstance, options: PagesOptions) {
  const { site, content, staticPageCacheEntries } = options
  if (!Number.isInteger(staticPageCacheEntries) || staticPageCacheEntries < 0) {
    throw new errors.OptionInvalid('staticPageCacheEntries', 'a whole number of entries, 0 or more')
  }
  const metrics = fastify.metrics
  metrics?.watchContentReads(() => content.readStats)
  const tracing = tracingOf(fastify)
  const versions = await createPageVersions(fastify, options, tracing)
  fastify.decorate('pageRegenerations', () => versions.regenerationStats)

  // A kept version's document, rendered once; none for a version not kept (past the bound): its requests stream.
  const documents = new PageDocuments()

  function answerPage(
    request: FastifyRequest,
    reply: FastifyReply,
    page: ServerPage,
    params: RouteParams,
    answer: PageAnswer,
    kept?: KeptDocumentSlot,
  ) {
    if ('notFound' in answer) return reply.callNotFound()
    if ('redirect' in answer) return reply.redirect(answer.redirect.destination, redirectStatus(answer.redirect))
    const target = { type: 'page', page, params, data: answer.props } as const
    return fastify.renderDocument(request, reply, { type: 'whole', target, kept })
  }

  /**
   * A partly prerendered page (docs/rendering.md "Partial prerendering"): its kept data as a static page instance's,
   * its request-time loader started at once; the document from the kept shell, or whole where there is none.
   */
  async function servePartialPage(
    request: FastifyRequest,
    reply: FastifyReply,
    page: ServerPage,
    params: RouteParams,
    result: PartialResult,
  ) {
    const { version } = result
    if (!('props' in version.answer)) return answerPage(request, reply, page, params, version.answer)
    const clientGone = () => reply.raw.destroyed && !reply.raw.writableFinished
    const live = loadLiveData(result.loadLive, serverLimits.liveDataTimeoutMs, {
      log: request.log,
      id: request.id,
      host: request.host,
      clientGone,
    })
    const kept = version.answer.props
    // A shell is kept with a kept version only: one past the bound renders whole, as its static page would stream.
    if (!result.kept) return answerPage(request, reply, page, params, { props: { kept, live: await live } })
    return fastify.renderDocument(request, reply, { type: 'partial', partial: { page, params, version, kept, live } })
  }

  /** A page's document: what the one call to the page versions gives it, as bytes. */
  async function servePage(request: FastifyRequest, reply: FastifyReply, page: ServerPage) {
    const params = (request.params ?? {}) as RouteParams
    const query = request.query as Record<string, unknown>
    const result = await versions.answer({ page, params }, query, request, pageRequestOf(request, reply))
    if (result.kind === 'partial') return servePartialPage(request, reply, page, params, result)
    if (result.kind === 'computed') return answerPage(request, reply, page, params, result.answer)
    markFreshness(reply, result)
    const slot = result.kept ? documents.slotOf(result.version) : undefined
    return answerPage(request, reply, page, params, result.version.answer, slot)
  }

  for (const page of site.pages) {
    fastify.route({
      method: 'GET',
      url: page.path,
      config: { pageId: page.id },
      handler: function servePageRoute(request, reply) {
        return servePage(request, reply, page)
      },
    })
    fastify.methodTable?.allow(page.path, page.action ? actionPageMethods : pageMethods)
  }

  await fastify.register(pageData, { versions, tracing, sender: options.sender })
  // Its own context: the form parsers it adds serve its routes only.
  await fastify.register(pageActions, { pages: site.pages, versions, content })
  // The route only with REVALIDATE_TOKEN; with REDIS_URL every instance hears the others' revalidations.
  await fastify.register(revalidate, { token: options.revalidateToken, pages: versions })
  fastify.log.debug({ pages: site.pages.length }, 'pages ready')
}

/** The fleet's page versions in Redis, loaded only when REDIS_URL is set. */
async function sharedPages(fastify: FastifyInstance, redis: SharedRedis): Promise<PageShare> {
  const [{ SharedPages }, { RedisPageStore }] = await Promise.all([
    import('../src/shared-state/shared-pages.ts'),
    import('../src/shared-state/redis-page-store.ts'),
  ])
  const store = new RedisPageStore({ redis, deploymentId: fastify.deploymentId, log: fastify.log })
  return new SharedPages(store, { log: fastify.log })
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on page routes: the id of the page in the page table. */
    pageId?: string
  }
}

export default fp(pages, {
  name: 'courier-pages',
  fastify: '5.x',
  dependencies: ['courier-deployment-id', 'courier-documents'],
})
