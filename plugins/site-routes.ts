import type { FastifyInstance } from 'fastify'
import { registerRateLimits } from '../src/rate-limits.ts'
import { sitePluginOf, type SiteRoute } from '../src/site-route-files.ts'

export interface SiteRoutesOptions {
  /** The site's route plugins (src/site-routes.ts), in file order. */
  routes: readonly SiteRoute[]
}

/**
 * The site's own routes and plugins (docs/your-routes.md): each file of site/routes/ registered as a plugin of its own,
 * after Courier's, so its routes get what every route gets (the error table and digests, the access line with its
 * reqId, metrics, the cross-site refusal, sessions) and what a file adds (a body parser, a hook, CORS) stays in it.
 * Every method a path takes is entered in the 405 table: another method gets 405 with that `Allow`. A route that asks
 * for a rate limit (`config: { rateLimit: { max, timeWindow } }`) gets one, per client and across the fleet.
 */
async function siteRoutes(fastify: FastifyInstance, options: SiteRoutesOptions) {
  const methodsByPath = new Map<string, Set<string>>()
  fastify.addHook('onRoute', function enterInMethodTable(route) {
    const methods = methodsByPath.get(route.url) ?? new Set<string>()
    for (const method of ([] as string[]).concat(route.method)) methods.add(method)
    methodsByPath.set(route.url, methods)
  })
  await registerRateLimits(fastify)
  for (const route of options.routes) await fastify.register(sitePluginOf(route))
  for (const [url, methods] of methodsByPath) fastify.methodTable?.allow(url, [...methods])
}

export default siteRoutes
