import type { FastifyRequest } from 'fastify'

/**
 * The route template of a request, as the access line, the metrics and the span name say it: the route Fastify
 * matched, or the path of the method table a 405 was answered on (src/method-not-allowed.ts); undefined for a request
 * no route took. Apart from the table itself, so the metrics' chunk loads no router.
 */
export function routeTemplate(request: FastifyRequest): string | undefined {
  return request.routeOptions.url ?? request.server.methodTable?.refusedRoute(request)
}
