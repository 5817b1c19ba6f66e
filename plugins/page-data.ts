import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { pages as pageTable, type PageDefinition } from '../client/routes.ts'
import { createPageMatcher, type PageMatch } from '../client/router/match.ts'
import { errors } from '../src/errors.ts'
import { matchesIfNoneMatch, strongEtag } from '../src/etag.ts'
import { methodNotAllowedRoute } from '../src/method-not-allowed.ts'
import { pageServerSide } from '../src/pages/loaders.ts'

export interface PageDataOptions {
  /** Serve the data of the test-only pages (/__test/...), as the pages plugin serves their HTML. */
  testRoutes: boolean
  /** At most this many `static` answers kept in memory (config/server.ts). */
  cacheEntries: number
}

/** The data URL's prefix; the page's path follows the id, with `.json` (DESIGN.md section 2). */
export const pageDataPrefix = '/_next/data/'

/**
 * `static` data is the same for every visitor of a deployment: the browser keeps it and revalidates it with the ETag.
 * `private` because a site step of the request filter (an auth gate) may guard the page and so its data.
 * `dynamic` data is computed for one request and never stored (DESIGN.md section 5).
 */
const dataCacheControl = {
  static: 'private, no-cache',
  dynamic: 'private, no-cache, no-store, max-age=0, must-revalidate',
  notFound: 'no-store',
} as const

const jsonType = 'application/json; charset=utf-8'
/** Methods the data URL answers (HEAD comes with GET). */
const dataMethods = ['GET', 'HEAD'] as const

interface Answer {
  statusCode: 200 | 404
  body: string
  /** Kept for the deployment: page data or a redirect, never a not-found answer. */
  keep: boolean
}

interface StaticAnswer extends Answer {
  etag: string
}

const notFoundAnswer: Answer = { statusCode: 404, body: JSON.stringify({ notFound: true }), keep: false }

/** `guides/intro.json` -> `/guides/intro`, `index.json` -> `/`; anything not ending in `.json` is no page. */
function pagePathOf(wildcard: string): string | undefined {
  if (!wildcard.endsWith('.json')) return undefined
  const path = `/${wildcard.slice(0, -'.json'.length)}`
  return path === '/index' ? '/' : path
}

interface DataRequest {
  Params: { deploymentId: string; '*': string }
  Headers: { 'x-deployment-id'?: string }
  Querystring: Record<string, unknown>
}

/**
 * Page data for client navigation: `GET|HEAD /_next/data/<deploymentId>/<page path>.json` runs the page's loader
 * and answers `{ pageProps, kind }`, `{ redirect }` or 404 `{ notFound: true }`, in JSON only, whatever the request
 * asks for. `static` answers are computed on their first request and kept for the life of the deployment (this
 * process), with a strong ETag; `dynamic` ones are computed per request.
 */
async function pageData(fastify: FastifyInstance, options: PageDataOptions) {
  const { testRoutes, cacheEntries } = options
  if (!Number.isInteger(cacheEntries) || cacheEntries < 0) {
    throw new errors.OptionInvalid('cacheEntries', 'a whole number of entries, 0 or more')
  }
  const deploymentId = fastify.deploymentId
  const servedPages: readonly PageDefinition[] = pageTable.filter((page) => testRoutes || !page.testOnly)
  const matchPage = createPageMatcher(servedPages)
  /** Static answers by page path; a promise, so concurrent first requests share one loader run. */
  const staticAnswers = new Map<string, Promise<StaticAnswer>>()

  async function load(match: PageMatch, query: Record<string, unknown>): Promise<Answer> {
    const loader = pageServerSide[match.page.id]?.load
    const result = loader ? await loader({ params: match.params, query, deploymentId }) : { props: {} }
    if ('notFound' in result) return notFoundAnswer
    if ('redirect' in result) return { statusCode: 200, body: JSON.stringify({ redirect: result.redirect }), keep: true }
    return { statusCode: 200, body: JSON.stringify({ pageProps: result.props, kind: match.page.kind }), keep: true }
  }

  function staticAnswer(key: string, match: PageMatch): Promise<StaticAnswer> {
    const kept = staticAnswers.get(key)
    if (kept) return kept
    const pending = load(match, {}).then((answer) => ({ ...answer, etag: strongEtag(answer.body) }))
    if (staticAnswers.size >= cacheEntries) return pending
    staticAnswers.set(key, pending)
    pending.then(
      (answer) => {
        if (!answer.keep) staticAnswers.delete(key)
      },
      // The request that ran the loader reports the failure; the next request runs it again.
      () => staticAnswers.delete(key),
    )
    return pending
  }

  fastify.route<DataRequest>({
    method: 'GET',
    url: `${pageDataPrefix}:deploymentId/*`,
    schema: {
      params: {
        type: 'object',
        properties: { deploymentId: { type: 'string' }, '*': { type: 'string' } },
        required: ['deploymentId', '*'],
      },
      headers: {
        type: 'object',
        properties: { 'x-deployment-id': { type: 'string' } },
      },
    },
    handler: async function servePageData(request, reply) {
      reply.header('x-deployment-id', deploymentId).header('x-content-type-options', 'nosniff')
      const claimed = request.headers['x-deployment-id']
      const requested = request.params.deploymentId
      // A missing header is fine (crawlers, curl); the id in the path must match whatever the header says.
      if (requested !== deploymentId || (claimed !== undefined && claimed !== deploymentId)) {
        throw new errors.DataDeploymentSkew(deploymentId, requested !== deploymentId ? requested : claimed)
      }
      const pagePath = pagePathOf(request.params['*'])
      const match = pagePath === undefined ? undefined : matchPage(pagePath)
      if (!match) return sendAnswer(reply, notFoundAnswer, dataCacheControl.notFound)
      if (match.page.kind === 'dynamic') {
        return sendAnswer(reply, await load(match, request.query), dataCacheControl.dynamic)
      }
      const answer = await staticAnswer(pathKey(match), match)
      if (answer.statusCode !== 200) return sendAnswer(reply, answer, dataCacheControl.notFound)
      reply.header('etag', answer.etag)
      if (matchesIfNoneMatch(request.headers['if-none-match'], answer.etag)) {
        return reply.code(304).header('cache-control', dataCacheControl.static).send()
      }
      return sendAnswer(reply, answer, dataCacheControl.static)
    },
  })

  // Any other method: 405 with Allow, decided before any body is read.
  fastify.route(methodNotAllowedRoute(fastify, `${pageDataPrefix}*`, dataMethods))
  fastify.log.debug({ pages: servedPages.length }, 'page data ready')
}

/** One key per page instance, whatever spelling of its path was asked (`/guides/x/`, `/guides//x`). */
function pathKey(match: PageMatch): string {
  return `${match.page.id}:${JSON.stringify(match.params)}`
}

function sendAnswer(reply: FastifyReply, answer: Answer, cacheControl: string) {
  return reply.code(answer.statusCode).header('cache-control', cacheControl).type(jsonType).send(answer.body)
}

export default fp(pageData, { name: 'courier-page-data', fastify: '5.x', dependencies: ['courier-deployment-id'] })
