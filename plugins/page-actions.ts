import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { createPageMatcher } from '../src/common/match.ts'
import { deploymentIdHeader, pageDataPrefix, readDataFile, type PageAnswer } from '../src/common/page-data.ts'
import type { ActionAnswer, RouteParams } from '../src/common/page-types.ts'
import { addVary } from '../src/compression/vary.ts'
import { errors } from '../src/errors.ts'
import { clientOf, registerRateLimits } from '../src/rate-limits.ts'
import { pageCacheControl } from '../src/pages/cache-control.ts'
import { formMediaTypes, readFormFields } from '../src/pages/form-body.ts'
import { joinPartialAnswers } from '../src/pages/partial-page.ts'
import { pageRequestOf } from '../src/pages/page-request.ts'
import { headOf } from '../src/pages/page-version.ts'
import type { PageVersions } from '../src/pages/page-versions.ts'
import type { ServerPage } from '../src/pages/site.ts'
import type { ContentSource } from '../src/content/content-source.ts'

export interface PageActionsOptions {
  /** The pages served: those with an action take `POST` on their path and their data URL. */
  pages: readonly ServerPage[]
  /** Where a page's data comes from, to show it again with a refused submission. */
  versions: PageVersions
  /** The site's content, which actions read as loaders do (CONTENT_DIR). */
  content: ContentSource
}

interface DataSubmission {
  Params: { deploymentId: string; '*': string }
}

/** A form submission's answers are the visitor's own: never stored, never shared. */
function ownAnswer(reply: FastifyReply): FastifyReply {
  addVary(reply, 'Cookie')
  return reply.header('cache-control', pageCacheControl.dynamic)
}

/**
 * Page actions (docs/forms.md): a `POST` to a page's own path runs the action its server half exports, with the form
 * the browser sent (urlencoded, or multipart without files: parsers of this plugin's routes only, within the server's
 * body limit); a `POST` to its data URL does the same for the client router's `<Form>`. A redirect answers `303 See
 * Other` (data: `{ redirect }`); a refused submission shows the page again, with its data for this request and what
 * the action said (`actionData`), as a 422 (or the 400 the action chose), never kept. Cross-site submissions are
 * refused before they get here, by the request filter's origin check.
 */
async function pageActions(fastify: FastifyInstance, options: PageActionsOptions) {
  const { pages, versions, content } = options
  const withActions = pages.filter((page) => page.action)
  if (withActions.length === 0) return
  const deploymentId = fastify.deploymentId
  const matchPage = createPageMatcher(withActions)

  // Only forms, only here: a JSON body to a page is a 415, and no other route of the site reads forms.
  fastify.removeAllContentTypeParsers()
  fastify.addContentTypeParser(
    [...formMediaTypes],
    { parseAs: 'buffer' },
    async function parseForm(request: FastifyRequest, body: Buffer | string) {
      return readFormFields(String(request.headers['content-type']), Buffer.from(body))
    },
  )

  // A page whose action has a rate limit (a sign-in's guesses) counts its submissions per client, the page's own POST
  // and its data URL's together, before any body is read. Without one, no limiter is registered.
  const limited = withActions.filter((page) => page.action!.rateLimit)
  if (limited.length > 0) await registerRateLimits(fastify)
  const limiters = new Map(
    limited.map((page) => {
      const { max, windowMs } = page.action!.rateLimit!
      const keyGenerator = (request: FastifyRequest) => `action:${page.id}:${clientOf(request)}`
      return [page.id, fastify.createRateLimit({ max, timeWindow: windowMs, keyGenerator })] as const
    }),
  )

  /** Counts a submission to `page`; a client past its budget gets 429 with `Retry-After`. */
  async function countSubmission(page: ServerPage, request: FastifyRequest, reply: FastifyReply) {
    const limit = limiters.get(page.id)
    if (!limit) return
    const counted = await limit(request)
    if (counted.isAllowed || !counted.isExceeded) return
    const retryAfter = Math.max(1, counted.ttlInSeconds)
    request.log.warn({ page: page.id, retryAfter }, 'page action refused: too many submissions from this client')
    reply.header('retry-after', String(retryAfter))
    throw new errors.RateLimited(`${retryAfter} seconds`)
  }

  /** The action's answer to this submission. */
  function act(
    page: ServerPage,
    params: RouteParams,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<ActionAnswer<unknown>> {
    const form = (request.body ?? {}) as Record<string, string>
    const query = request.query as Readonly<Record<string, unknown>>
    const context = { params, query, deploymentId, content, request: pageRequestOf(request, reply), form }
    return Promise.resolve(page.action!(context))
  }

  /** The page's data for this request, to show with a refused submission. */
  async function dataOf(
    page: ServerPage,
    params: RouteParams,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<PageAnswer> {
    const query = request.query as Readonly<Record<string, unknown>>
    const result = await versions.answer({ page, params }, query, request, pageRequestOf(request, reply))
    if (result.kind === 'computed') return result.answer
    if (result.kind === 'kept') return result.version.answer
    const joined = await joinPartialAnswers(result.version.answer, result.loadLive)
    return 'props' in joined ? { props: joined.props } : joined
  }

  for (const page of withActions) {
    fastify.post(page.path, {
      onRequest: (request, reply) => countSubmission(page, request, reply),
      handler: async function submitPage(request, reply) {
        const params = (request.params ?? {}) as RouteParams
        const answer = await act(page, params, request, reply)
        ownAnswer(reply)
        if ('redirect' in answer) return reply.redirect(answer.redirect.destination, 303)
        const data = await dataOf(page, params, request, reply)
        if (!('props' in data)) return reply.callNotFound()
        const refused = { actionData: answer.invalid, statusCode: answer.status ?? 422 }
        return fastify.renderDocument(request, reply, {
          type: 'whole',
          target: { type: 'page', page, params, data: data.props, refused },
        })
      },
    })
  }

  /** The page with an action a data URL names; a data URL of any other (or of another deployment) is refused. */
  function submittedPage(request: FastifyRequest<DataSubmission>, reply: FastifyReply) {
    reply.header(deploymentIdHeader, deploymentId).header('x-content-type-options', 'nosniff')
    const claimed = request.headers[deploymentIdHeader]
    if (request.params.deploymentId !== deploymentId || (claimed !== undefined && claimed !== deploymentId)) {
      throw new errors.DataDeploymentSkew(deploymentId, request.params.deploymentId)
    }
    const file = readDataFile(request.params['*'])
    const match = file.isJson ? matchPage(file.pagePath) : undefined
    if (!match) {
      reply.header('allow', 'GET, HEAD')
      throw new errors.MethodNotAllowed('POST', `${pageDataPrefix}*`)
    }
    return match
  }

  fastify.post<DataSubmission>(`${pageDataPrefix}:deploymentId/*`, {
    // Decided before any body is read: the data URL of a page without an action takes no POST.
    onRequest: async function refuseWithoutAction(request, reply) {
      await countSubmission(submittedPage(request, reply).page, request, reply)
    },
    handler: async function submitData(request, reply) {
      const match = submittedPage(request, reply)
      const answer = await act(match.page, match.params, request, reply)
      ownAnswer(reply).type('application/json; charset=utf-8')
      if ('redirect' in answer) {
        return reply.send(JSON.stringify({ redirect: { destination: answer.redirect.destination, permanent: false } }))
      }
      const data = await dataOf(match.page, match.params, request, reply)
      if (!('props' in data)) return reply.code(404).send(JSON.stringify({ notFound: true }))
      const head = headOf(match.page, data, match.params)
      const { kind } = match.page
      return reply
        .code(answer.status ?? 422)
        .send(JSON.stringify({ pageProps: data.props, kind, head, actionData: answer.invalid }))
    },
  })
}

export default pageActions
