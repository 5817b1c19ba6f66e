import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { alwaysHeaders, hstsHeaderValue, type SiteRedirect } from '../config/request-filter.ts'
import { deploymentIdHeader, encodePageAnswer } from '../src/common/page-data.ts'
import { errors } from '../src/errors.ts'
import {
  createNonceStep,
  createRedirectStep,
  createSecurityHeadersStep,
  type PolicyStep,
  type PolicyTarget,
  type StepOutcome,
} from '../src/site-policy.ts'
import { redirectStatus } from '../src/pages/page-answers.ts'
import { compileExclusions, judgePath } from '../src/site-policy-path.ts'
import { tracingOf } from '../src/tracing/tracing.ts'

export interface RequestFilterOptions {
  /** Send Strict-Transport-Security (HSTS=true): only behind TLS. */
  hsts: boolean
  /** The site's own steps, run in order after the built-in ones (nonce, security headers, the site's redirects). */
  steps?: readonly PolicyStep[]
  /** The site's redirects (site/request-filter.ts): router patterns, `from` -> `to`. */
  redirects?: readonly SiteRedirect[]
  /** The page paths (router patterns) of the site served: the shape-based exclusions never swallow a page. */
  pagePatterns: readonly string[]
}

function isThenable(value: unknown): value is PromiseLike<StepOutcome> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then === 'function'
}

/**
 * A redirect of a data request is answered the way the page-data route answers a loader's redirect: 200 JSON
 * `{ redirect }`, so the client router navigates to the new page (and its URL) instead of letting fetch follow a 3xx
 * to data that would show under the old URL.
 */
function sendDataRedirect(
  reply: FastifyReply,
  deploymentId: string,
  destination: string,
  permanent: boolean,
): FastifyReply {
  const answer = encodePageAnswer({ redirect: { destination, permanent } })
  // The client router trusts data only from its own deployment (page-data answers carry the id too).
  return reply
    .code(answer.statusCode)
    .header(deploymentIdHeader, deploymentId)
    .type('application/json; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(answer.body)
}

function addHeaders(reply: FastifyReply, outcome: StepOutcome): void {
  if (outcome.action !== 'redirect' && outcome.headers) reply.headers(outcome.headers)
}

/**
 * The request filter (docs/request-filter.md): on every path but the exclusions of config/request-filter.ts, judged on
 * the pathname the router matches (src/site-policy-path.ts), it runs the site policy (src/site-policy.ts). A target the
 * router could read differently from the filter is refused with 400 before any route runs.
 */
async function requestFilter(fastify: FastifyInstance, options: RequestFilterOptions) {
  const { hsts, steps: siteSteps = [], redirects: siteRedirects = [], pagePatterns } = options
  if (!Array.isArray(pagePatterns) || pagePatterns.some((pattern) => typeof pattern !== 'string')) {
    throw new errors.OptionInvalid('pagePatterns', 'the router patterns of the pages served')
  }
  if (typeof hsts !== 'boolean') throw new errors.OptionInvalid('hsts', 'true or false')
  if (!Array.isArray(siteSteps) || siteSteps.some((step) => typeof step !== 'function')) {
    throw new errors.OptionInvalid('steps', 'an array of functions (request, target) => outcome')
  }
  if (!Array.isArray(siteRedirects)) throw new errors.OptionInvalid('redirects', 'an array of { from, to, permanent }')
  for (const redirect of siteRedirects) {
    if (
      typeof redirect?.from !== 'string' ||
      typeof redirect.to !== 'string' ||
      !redirect.from.startsWith('/') ||
      !redirect.to.startsWith('/') ||
      redirect.to.startsWith('//')
    ) {
      throw new errors.OptionInvalid('redirects', `paths of the site, got ${redirect.from} -> ${redirect.to}`)
    }
  }
  // Declared up front so every request object has the same shape (Fastify's advice for per-request fields).
  fastify.decorateRequest('cspNonce', undefined)
  fastify.decorateRequest('filterDecision', undefined)

  const deploymentId = fastify.deploymentId
  const filterResponded = new errors.FilterResponded()
  const isExcluded = compileExclusions(pagePatterns)
  const staticHeaders = Object.freeze(
    hsts ? { ...alwaysHeaders, 'strict-transport-security': hstsHeaderValue } : alwaysHeaders,
  )
  const protection = [createNonceStep(), createSecurityHeadersStep()] as const
  const steps: readonly PolicyStep[] = Object.freeze([...protection, createRedirectStep(siteRedirects), ...siteSteps])

  async function runSteps(request: FastifyRequest, reply: FastifyReply, target: PolicyTarget) {
    for (const step of steps) {
      const result = step(request, target)
      const outcome = isThenable(result) ? await result : result
      addHeaders(reply, outcome)
      if (outcome.action === 'continue') continue
      request.log.debug({ step: step.name, action: outcome.action }, 'site policy answered')
      if (outcome.action === 'redirect') {
        if (target.pageData) return sendDataRedirect(reply, deploymentId, outcome.location, outcome.permanent)
        return reply.redirect(outcome.location, redirectStatus(outcome))
      }
      if (outcome.body === undefined) {
        // The status-title table answers: the error page, or JSON for data and the API.
        return fastify.answerWithStatus(request, reply, outcome.statusCode, filterResponded)
      }
      return reply.code(outcome.statusCode).send(outcome.body)
    }
    return undefined
  }

  /**
   * A target refused before any page could see it: not an excluded path, so its error page is filtered like any other.
   */
  function protectRefusedRequest(request: FastifyRequest, reply: FastifyReply): void {
    request.filterDecision = 'applied'
    reply.headers(staticHeaders)
    for (const step of protection) addHeaders(reply, step(request, { pathname: request.url, pageData: false }))
  }

  /**
   * The router's own refusals (a malformed escape, an over-long parameter) run no hook: buildApp's frameworkErrors
   * asks here instead (src/app.ts). An excluded path stays excluded; anything else gets the policy's headers, no site
   * step.
   */
  fastify.decorate('judgeRefusedRequest', function judgeRefusedRequest(request: FastifyRequest, reply: FastifyReply) {
    const judgement = judgePath(request.url)
    if (judgement.kind === 'path' && isExcluded(judgement.pathname)) {
      request.filterDecision = 'excluded'
      reply.headers(staticHeaders)
      return
    }
    protectRefusedRequest(request, reply)
  })

  const tracing = tracingOf(fastify)

  fastify.addHook('onRequest', async function applySitePolicy(request: FastifyRequest, reply: FastifyReply) {
    if (!tracing.isRecording(request)) return filterRequest(request, reply)
    // A sampled request: the filter's decision and time go on the request span (docs/operations.md "Traces"), not a
    // span of their own.
    const started = performance.now()
    try {
      return await filterRequest(request, reply)
    } finally {
      tracing.setAttributes(request, {
        'courier.filter.decision': request.filterDecision ?? 'refused',
        'courier.filter.answered': reply.sent,
        'courier.filter.duration_ms': Math.round((performance.now() - started) * 1000) / 1000,
      })
    }
  })

  function filterRequest(request: FastifyRequest, reply: FastifyReply) {
    const judgement = judgePath(request.url)
    if (judgement.kind === 'invalid') {
      // No site step sees it.
      protectRefusedRequest(request, reply)
      throw new errors.FilterPathInvalid(judgement.reason)
    }
    reply.headers(staticHeaders)
    if (isExcluded(judgement.pathname)) {
      request.filterDecision = 'excluded'
      return
    }
    request.filterDecision = 'applied'
    const target: PolicyTarget = { pathname: judgement.pathname, pageData: judgement.pageData }
    return runSteps(request, reply, target)
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The request filter's decision and headers for a request the router refused before any hook could run. */
    judgeRefusedRequest: (request: FastifyRequest, reply: FastifyReply) => void
  }
  interface FastifyRequest {
    /** The request's CSP nonce: set on filtered paths, undefined on excluded ones. */
    cspNonce: string | undefined
    /** Whether the site policy ran for this request (the access line says it). */
    filterDecision: 'applied' | 'excluded' | undefined
  }
}

export default fp(requestFilter, {
  name: 'courier-request-filter',
  fastify: '5.x',
  dependencies: ['courier-deployment-id', 'courier-errors'],
})
