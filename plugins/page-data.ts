import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import {
  deploymentIdHeader,
  encodePageAnswer,
  pageAnswerKind,
  pageDataPrefix,
  readDataFile,
  type EncodedPageAnswer,
  type PageAnswerKind,
} from '../src/common/page-data.ts'
import { errors } from '../src/errors.ts'
import type { Sender } from '../src/delivery/send.ts'
import type { PageDataOutcome } from '../src/metrics/recorder.ts'
import { pageCacheControl, pageCacheControlOf, variesByVisitor } from '../src/pages/cache-control.ts'
import { addVary } from '../src/compression/vary.ts'
import { pageRequestOf } from '../src/pages/page-request.ts'
import { markFreshness, type PartialResult } from '../src/pages/page-answers.ts'
import { headOf } from '../src/pages/page-version.ts'
import type { PageMatch } from '../src/common/match.ts'
import { joinPartialAnswers } from '../src/pages/partial-page.ts'
import type { PageVersions } from '../src/pages/page-versions.ts'
import type { ServerPage } from '../src/pages/site.ts'
import { tracingOff, type TraceSpan, type Tracing } from '../src/tracing/tracing.ts'

export interface PageDataOptions {
  /** The pages' versions, shared with their HTML routes (plugins/pages.ts registers this plugin); it reads a data
   * URL's page path as the routes do. */
  versions: PageVersions
  /** The page-data span and its loader's (plugins/tracing.ts); off by default. */
  tracing?: Tracing
  /** How kept page data goes on the wire (src/delivery/send.ts). */
  sender: Sender
}

const jsonType = 'application/json; charset=utf-8'
/** Methods the data URL answers (HEAD comes with GET). */
const dataMethods = ['GET', 'HEAD'] as const

/** A data URL that names no page of the site. */
const noSuchPage = encodePageAnswer({ notFound: true })

interface DataRequest {
  Params: { deploymentId: string; '*': string }
  Headers: { 'x-deployment-id'?: string }
  Querystring: Record<string, unknown>
}

/** A loader's answer as the page-data metric counts it (METRICS_PORT). */
const outcomes: Readonly<Record<PageAnswerKind, PageDataOutcome>> = {
  props: 'props',
  redirect: 'redirect',
  notFound: 'not_found',
}

/** An answer computed per request, or one with no data: plugins/compression.ts compresses it as it goes. */
function sendAnswer(reply: FastifyReply, answer: EncodedPageAnswer, cacheControl: string) {
  if (variesByVisitor(cacheControl)) addVary(reply, 'Cookie')
  return reply.code(answer.statusCode).header('cache-control', cacheControl).type(jsonType).send(answer.body)
}

/**
 * Page data for client navigation: `GET|HEAD /_next/data/<deploymentId>/<page path>.json` answers the page's loader
 * as `{ pageProps, kind }`, `{ redirect }` or 404 `{ notFound: true }` (encodePageAnswer, src/common/page-data.ts), in JSON
 * only, whatever the request asks for. A `static` page's answer is the one its HTML route serves, kept for the
 * deployment, with a strong ETag; a `dynamic` page's is computed per request.
 */
async function pageData(fastify: FastifyInstance, options: PageDataOptions) {
  const { versions, tracing = tracingOff, sender } = options
  const deploymentId = fastify.deploymentId
  const metrics = fastify.metrics
  // Kept page data compressed once per coding (the best each does), never per request; by version.

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
        properties: { [deploymentIdHeader]: { type: 'string' } },
      },
    },
    handler: function servePageData(request, reply) {
      return tracing.inSpan(request, 'courier.page_data', undefined, (span) => answerPageData(request, reply, span))
    },
  })

  async function answerPageData(request: FastifyRequest<DataRequest>, reply: FastifyReply, span: TraceSpan) {
    reply.header(deploymentIdHeader, deploymentId).header('x-content-type-options', 'nosniff')
    const claimed = request.headers[deploymentIdHeader]
    const requested = request.params.deploymentId
    // A missing header is fine (crawlers, curl); the id in the path must match whatever the header says.
    if (requested !== deploymentId || (claimed !== undefined && claimed !== deploymentId)) {
      metrics?.pageDataAnswered('none', 'deployment_skew')
      throw new errors.DataDeploymentSkew(deploymentId, requested !== deploymentId ? requested : claimed)
    }
    const file = readDataFile(request.params['*'])
    const match = file.isJson ? versions.match(file.pagePath) : undefined
    if (!match) {
      metrics?.pageDataAnswered('none', 'not_found')
      return sendAnswer(reply, noSuchPage, pageCacheControl.error)
    }
    span.setAttributes({ 'courier.page.id': match.page.id, 'courier.page.kind': match.page.kind })
    const result = await versions.answer(match, request.query, span, pageRequestOf(request, reply))
    if (result.kind === 'partial') return answerPartialData(reply, result, match)
    if (result.kind === 'computed') {
      metrics?.pageDataAnswered('dynamic', outcomes[pageAnswerKind(result.answer)])
      const head = headOf(match.page, result.answer, match.params)
      return sendAnswer(reply, encodePageAnswer(result.answer, match.page.kind, head), pageCacheControl.dynamic)
    }
    const { data } = result.version
    if (data.statusCode !== 200) {
      metrics?.pageDataAnswered('static', 'not_found')
      return sendAnswer(reply, data, pageCacheControl.error)
    }
    markFreshness(reply, result)
    // Kept for the deployment, so compressed once per coding (the best each does), never per request: by the sender.
    const sent = sender.sendKeptBody(request, reply, data, {
      statusCode: data.statusCode,
      cacheControl: pageCacheControlOf(match.page, false),
      type: jsonType,
    })
    // The sender answered 304 where If-None-Match named any encoding of this data.
    const outcome = reply.statusCode === 304 ? 'not_modified' : outcomes[pageAnswerKind(result.version.answer)]
    metrics?.pageDataAnswered('static', outcome)
    return sent
  }

  /**
   * A partly prerendered page's data: the kept half from its kept version (no loader run while it is kept), the
   * request-time loader run for this request (src/pages/partial-page.ts); per request, as a dynamic page's.
   */
  async function answerPartialData(reply: FastifyReply, result: PartialResult, match: PageMatch<ServerPage>) {
    const { page } = match
    const answer = await joinPartialAnswers(result.version.answer, result.loadLive)
    metrics?.pageDataAnswered('dynamic', outcomes[pageAnswerKind(answer)])
    const cacheControl = 'notFound' in answer ? pageCacheControl.error : pageCacheControl.dynamic
    return sendAnswer(reply, encodePageAnswer(answer, page.kind, headOf(page, answer, match.params)), cacheControl)
  }

  // Any other method: 405 with Allow, decided before any body is read.
  fastify.methodTable?.allow(`${pageDataPrefix}*`, dataMethods)
}

export default fp(pageData, { name: 'courier-page-data', fastify: '5.x', dependencies: ['courier-deployment-id'] })
