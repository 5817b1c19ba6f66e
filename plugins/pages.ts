import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { PageAnswer } from '../site/page-data.ts'
import type { RouteParams } from '../site/page-types.ts'
import { createPageMatcher } from '../site/match.ts'
import { errors } from '../src/errors.ts'
import { methodNotAllowedRoute } from '../src/method-not-allowed.ts'
import { PageAnswers } from '../src/pages/answers.ts'
import type { ServerPage, Site } from '../src/pages/site.ts'
import type { KeptDocumentSlot } from '../src/render/document-cache.ts'
import { tracedStaticEntry, traceLoader } from '../src/tracing/page-spans.ts'
import { tracingOf } from '../src/tracing/tracing.ts'
import pageData from './page-data.ts'

export interface PagesOptions {
  /** The pages to serve, loaded once at start-up (src/pages/site.ts). */
  site: Site
  /** `static` page instances kept per deployment, at most this many (config/server.ts). */
  staticPageCacheEntries: number
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
  const { site, staticPageCacheEntries } = options
  if (!Number.isInteger(staticPageCacheEntries) || staticPageCacheEntries < 0) {
    throw new errors.OptionInvalid('staticPageCacheEntries', 'a whole number of entries, 0 or more')
  }
  const answers = new PageAnswers({ deploymentId: fastify.deploymentId, maxStaticEntries: staticPageCacheEntries })
  const tracing = tracingOf(fastify)
  const answerItself = (answer: PageAnswer) => answer

  function answerPage(request: FastifyRequest, reply: FastifyReply, page: ServerPage, params: RouteParams, answer: PageAnswer, kept?: KeptDocumentSlot) {
    if ('notFound' in answer) return reply.callNotFound()
    if ('redirect' in answer) return reply.redirect(answer.redirect.destination, answer.redirect.permanent ? 308 : 307)
    return fastify.renderDocument(request, reply, { type: 'page', page, params, data: answer.props }, kept)
  }

  for (const page of site.pages) {
    fastify.route({
      method: 'GET',
      url: page.path,
      config: { pageId: page.id },
      handler: async function servePage(request, reply) {
        const params = (request.params ?? {}) as RouteParams
        if (page.kind === 'dynamic') {
          const query = request.query as Record<string, unknown>
          const answer = await traceLoader(tracing, request, page, () => answers.load(page, params, query), answerItself)
          return answerPage(request, reply, page, params, answer)
        }
        const entry = await tracedStaticEntry(tracing, request, answers, { page, params })
        return answerPage(request, reply, page, params, entry.answer, entry.document)
      },
    })
    fastify.route(methodNotAllowedRoute(fastify, page.path, pageMethods))
  }

  await fastify.register(pageData, { answers, matchPage: createPageMatcher(site.pages), tracing })
  fastify.log.debug({ pages: site.pages.length }, 'pages ready')
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
