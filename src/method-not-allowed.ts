import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { errors } from './errors.ts'
import { nodeHttp } from './runtime/node-http.ts'

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

/**
 * Fastify 5 routes only GET, HEAD, TRACE, DELETE, OPTIONS, POST, PUT, PATCH and QUERY unless told of more
 * (`addHttpMethod`); a method it does not know never reaches a route, not even a 405 route, and gets the 404 handler.
 * Every other method Node's parser accepts (WebDAV's PROPFIND, MKCOL, LOCK..., SEARCH, PURGE, QUERY...) is made known
 * here, before any route is registered, so the 405 routes above take them too. None has a route that reads its body:
 * they are bodyless to Fastify (a path that is no page answers 404 without reading one). CONNECT never reaches the
 * router (Node hands it to the server's `connect` listener, src/connection-errors.ts).
 */
export function routeEveryMethod(instance: FastifyInstance): void {
  const known = new Set(instance.supportedMethods)
  for (const method of nodeHttp.METHODS) {
    if (method !== 'CONNECT' && !known.has(method)) instance.addHttpMethod(method)
  }
}
