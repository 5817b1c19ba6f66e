import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { errors } from './errors.ts'

/**
 * The route that answers every other method on a path with 405 and its `Allow` header (docs/errors.md), instead
 * of the 404 Fastify gives a method it has no route for. It runs at onRequest, before any body is read or parsed, so
 * a POST of any type or size still learns which methods the path takes. Registered beside the real routes: the route
 * table itself says what each path answers.
 */
export function methodNotAllowedRoute(
  instance: FastifyInstance,
  url: string,
  allowed: readonly string[],
): RouteOptions {
  const allow = allowed.join(', ')
  async function rejectMethod(request: FastifyRequest, reply: FastifyReply) {
    reply.header('allow', allow)
    throw new errors.MethodNotAllowed(request.method, request.routeOptions.url ?? url)
  }
  return {
    method: instance.supportedMethods.filter((method) => !allowed.includes(method)),
    url,
    onRequest: rejectMethod,
    handler: rejectMethod,
  }
}
