import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { judgeSender, unsafeMethods } from '../src/cross-site.ts'
import { errors } from '../src/errors.ts'

export interface CrossSiteOptions {
  /** The site's public origin (SITE_URL, `https://courier.example`): where its own pages are. */
  siteUrl: string
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * `true`: this route takes unsafe methods from other sites' pages too (a public API, with @fastify/cors for its
     * preflight); its own authentication decides (docs/forms.md "Cross-site requests").
     */
    crossSite?: boolean
  }
}

/**
 * The request's own origin as a browser writes it (no default port), or none when its Host is no host (empty,
 * garbage: then only SITE_URL's origin is the site's).
 */
function ownOriginOf(request: FastifyRequest): string | undefined {
  if (!request.host) return undefined
  try {
    return new URL(`${request.protocol}://${request.host}`).origin
  } catch {
    return undefined
  }
}

/**
 * Cross-site requests refused by default (docs/forms.md "Cross-site requests"): a POST, PUT, PATCH or DELETE to any
 * route, a page's action or a site's own route, from another site's page is answered 403 from the status table before
 * anything of it runs, so a page elsewhere cannot sign a visitor in or out, or send a form in their name (CSRF,
 * `SameSite=Lax` cookies or not). A route opens itself to other sites with `config: { crossSite: true }`.
 */
async function crossSite(fastify: FastifyInstance, options: CrossSiteOptions) {
  const siteOrigin = new URL(options.siteUrl).origin

  // A callback hook, not an async one: every request passes here, and a GET must cost no promise.
  fastify.addHook(
    'onRequest',
    function refuseCrossSite(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
      if (!unsafeMethods.has(request.method) || request.routeOptions.config?.crossSite === true) return done()
      const verdict = judgeSender(request, [siteOrigin, ownOriginOf(request)])
      if (verdict.sameSite) return done()
      request.log.warn({ method: request.method, from: verdict.from }, 'cross-site request refused')
      reply.header('cache-control', 'no-store')
      done(new errors.CrossSiteRefused(request.method, verdict.from))
    },
  )
}

export default fp(crossSite, { name: 'courier-cross-site', fastify: '5.x' })
