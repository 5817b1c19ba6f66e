import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { PageAnswer } from '../site/page-data.ts'
import type { RouteParams } from '../site/page-types.ts'
import { createPageMatcher } from '../site/match.ts'
import { errors } from '../src/errors.ts'
import { methodNotAllowedRoute } from '../src/method-not-allowed.ts'
import { hostname } from 'node:os'
import { regeneration } from '../config/content.ts'
import { assignDigest } from '../src/digest.ts'
import { PageAnswers, type RegenerationReport, type StaticPageEntry } from '../src/pages/answers.ts'
import { pageCacheHeader } from '../src/pages/cache-control.ts'
import type { PartialPage, ServerPage, Site } from '../src/pages/site.ts'
import { loadLiveData } from '../src/pages/partial-page.ts'
import { serverLimits } from '../config/server.ts'
import type { ContentSource } from '../src/content/content-source.ts'
import type { KeptDocumentSlot } from '../src/render/document-cache.ts'
import { tracedStaticEntry, traceLoader, traceRegeneration } from '../src/tracing/page-spans.ts'
import { tracingOf } from '../src/tracing/tracing.ts'
import pageData from './page-data.ts'
import type { Sender } from '../src/delivery/send.ts'

export interface PagesOptions {
  /** The pages to serve, loaded once at start-up (src/pages/site.ts). */
  site: Site
  /** The site's content, which loaders read at run time (CONTENT_DIR). */
  content: ContentSource
  /** `static` page instances kept per deployment, at most this many (config/server.ts). */
  staticPageCacheEntries: number
  /** How kept page data goes on the wire (src/delivery/send.ts): the one `buildApp` makes. */
  sender: Sender
}

/** Methods a page answers; any other gets 405 with `Allow: GET, HEAD`. */
const pageMethods = ['GET', 'HEAD'] as const

/**
 * Pages: the server's one copy of the page table, served two ways from one loader run. `GET <page path>` answers the
 * page's document (plugins/documents.ts renders it), `GET /_next/data/<id>/<page path>.json` its page data
 * (plugins/page-data.ts). A `static` page instance is loaded once per deployment and its document rendered once;
 * a `dynamic` page is loaded once per request.
 */
async function pages(fastify: FastifyInstance, options: PagesOptions) {
  const { site, content, staticPageCacheEntries } = options
  if (!Number.isInteger(staticPageCacheEntries) || staticPageCacheEntries < 0) {
    throw new errors.OptionInvalid('staticPageCacheEntries', 'a whole number of entries, 0 or more')
  }
  const instance = `${hostname()}:${process.pid}`
  const metrics = fastify.metrics
  metrics?.watchContentReads(() => content.readStats)

  const tracing = tracingOf(fastify)

  /** One regeneration's end: its log line, its count and time, its span. */
  function reportRegeneration(report: RegenerationReport) {
    const { page, path, reason, durationMs, outcome, loaderRan, error } = report
    const fields = { page: page.id, path, reason, durationMs: Math.round(durationMs * 10) / 10, instance, loaderRan }
    metrics?.pageRegenerated(reason, outcome, durationMs / 1000)
    if (outcome !== 'failed') {
      traceRegeneration(tracing, report, fastify.deploymentId)
      return fastify.log.info({ ...fields, outcome }, 'page regenerated')
    }
    const { digest } = assignDigest(error, 'regeneration')
    traceRegeneration(tracing, report, fastify.deploymentId, digest)
    fastify.log.error({ ...fields, err: error, digest, retryInMs: regeneration.retryBackoffMs }, 'page regeneration failed')
  }

  const matchPage = createPageMatcher(site.pages)
  // With REDIS_URL the fleet shares page versions: one loader run per page instance, the same bytes everywhere.
  const redis = fastify.hasDecorator('sharedRedis') ? fastify.sharedRedis : null
  const share = redis
    ? new (await import('../src/shared-state/shared-pages.ts')).SharedPages({ redis, deploymentId: fastify.deploymentId, log: fastify.log })
    : undefined
  const answers = new PageAnswers({
    deploymentId: fastify.deploymentId,
    ...(share ? { share } : {}),
    matchPage,
    content,
    maxStaticEntries: staticPageCacheEntries,
    loaderTimeoutMs: regeneration.loaderTimeoutMs,
    retryBackoffMs: regeneration.retryBackoffMs,
    onRegeneration: reportRegeneration,
  })

  /** Says, on a page with `revalidate`, whether its kept version was served fresh or stale. */
  function markFreshness(reply: FastifyReply, page: ServerPage, entry: StaticPageEntry) {
    if (page.revalidate !== undefined) reply.header(pageCacheHeader, answers.isStale(entry) ? 'STALE' : 'HIT')
  }

  fastify.decorate('revalidatePages', function revalidatePages(request: { paths: readonly string[]; tags: readonly string[] } | 'everything') {
    return answers.revalidate(request, matchPage)
  })
  fastify.decorate('regeneratePagesNow', function regeneratePagesNow(request: { paths: readonly string[]; tags: readonly string[] }) {
    return answers.regenerateNow(request, matchPage)
  })
  const answerItself = (answer: PageAnswer) => answer

  function answerPage(request: FastifyRequest, reply: FastifyReply, page: ServerPage, params: RouteParams, answer: PageAnswer, kept?: KeptDocumentSlot) {
    if ('notFound' in answer) return reply.callNotFound()
    if ('redirect' in answer) return reply.redirect(answer.redirect.destination, answer.redirect.permanent ? 308 : 307)
    return fastify.renderDocument(request, reply, { type: 'page', page, params, data: answer.props }, kept)
  }

  /**
   * A partly prerendered page (docs/rendering.md "Partial prerendering"): its kept data as a static page instance's,
   * its request-time loader started at once; the document from the kept shell, or whole where there is none.
   */
  async function servePartialPage(
    request: FastifyRequest,
    reply: FastifyReply,
    page: ServerPage,
    partial: PartialPage,
    params: RouteParams,
  ) {
    const entry = await tracedStaticEntry(tracing, request, answers, { page: partial.kept, params })
    if (!('props' in entry.answer)) return answerPage(request, reply, page, params, entry.answer)
    const query = request.query as Record<string, unknown>
    const context = { params, query, deploymentId: fastify.deploymentId, content }
    const live = loadLiveData(partial.live, context, serverLimits.liveDataTimeoutMs, request)
    const kept = entry.answer.props
    if (await fastify.renderPartialDocument(request, reply, { page, params, version: entry, kept, live })) return reply
    return answerPage(request, reply, page, params, { props: { kept, live: await live } })
  }

  for (const page of site.pages) {
    fastify.route({
      method: 'GET',
      url: page.path,
      config: { pageId: page.id },
      handler: async function servePage(request, reply) {
        const params = (request.params ?? {}) as RouteParams
        if (page.partial) return servePartialPage(request, reply, page, page.partial, params)
        if (page.kind === 'dynamic') {
          const query = request.query as Record<string, unknown>
          const answer = await traceLoader(tracing, request, page, () => answers.load(page, params, query), answerItself)
          return answerPage(request, reply, page, params, answer)
        }
        const entry = await tracedStaticEntry(tracing, request, answers, { page, params })
        markFreshness(reply, page, entry)
        return answerPage(request, reply, page, params, entry.answer, entry.document)
      },
    })
    fastify.route(methodNotAllowedRoute(fastify, page.path, pageMethods))
  }

  await fastify.register(pageData, { answers, matchPage, tracing, sender: options.sender })
  fastify.log.debug({ pages: site.pages.length }, 'pages ready')
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Marks the kept pages at `paths` and those whose answer carries one of `tags` for regeneration, in this process
     * (plugins/revalidate.ts tells every instance): the paths of the kept page instances named. `everything`: every
     * kept page (an instance that cannot tell which revalidations it missed).
     */
    revalidatePages(request: { paths: readonly string[]; tags: readonly string[] } | 'everything'): string[]
    /**
     * Regenerates the kept pages a revalidation this instance takes names, serving their kept versions meanwhile;
     * resolves once each has its new version: the paths named.
     */
    regeneratePagesNow(request: { paths: readonly string[]; tags: readonly string[] }): Promise<string[]>
  }
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
