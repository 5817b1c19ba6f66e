import FindMyWay from 'find-my-way'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { errors } from './errors.ts'
import { nodeHttp } from './runtime/node-http.ts'

/** How the site's router reads a path (src/app.ts gives Fastify the same): the table must read it the same way. */
export interface MethodTableRouterOptions {
  ignoreTrailingSlash: boolean
  maxParamLength: number
}

interface AllowedMethods {
  /** The route template, as the route that takes the allowed methods is registered (`/guides/:slug`). */
  route: string
  methods: readonly string[]
  /** The `Allow` header: the methods in the order given. */
  allow: string
}

/** The table's router holds each path under this one method: a path is one entry, whatever it allows. */
const entryMethod = 'GET'

function noHandler(): void {}

/**
 * The paths that answer every other method with 405 and their `Allow` header (docs/errors.md) instead of the 404
 * Fastify gives a method it has no route for: one entry per path, in a router of their own (find-my-way, Fastify's
 * router, with the site router's reading of a path), consulted only for a request that reached no route
 * (plugins/method-not-allowed.ts, at onRequest: before any body is read or parsed). A path of the site's router is
 * not matched for each method: the site's routes stay the only ones it holds.
 */
export class MethodTable {
  readonly #router: FindMyWay.Instance<FindMyWay.HTTPVersion.V1>
  /** The route template of each request refused: its access line, metrics and span name it as its route would. */
  readonly #refused = new WeakMap<FastifyRequest, string>()

  constructor(routerOptions: MethodTableRouterOptions) {
    this.#router = FindMyWay({ ...routerOptions })
  }

  /** `route` (a pattern of the site's router) takes only `methods`: any other is answered 405. */
  allow(route: string, methods: readonly string[]): void {
    const entry: AllowedMethods = { route, methods, allow: methods.join(', ') }
    this.#router.on(entryMethod, route, noHandler, entry)
  }

  /**
   * The 405 of a request on a path of the table with a method the path does not take, its `Allow` header set on the
   * reply; undefined for any other request (a path not in the table stays the 404 it is).
   */
  refusal(request: FastifyRequest, reply: FastifyReply): FastifyError | undefined {
    const found = this.#router.find(entryMethod, request.url)
    if (found === null) return undefined
    const entry = found.store as AllowedMethods
    if (entry.methods.includes(request.method)) return undefined
    this.#refused.set(request, entry.route)
    reply.header('allow', entry.allow)
    return new errors.MethodNotAllowed(request.method, entry.route)
  }

  /** The route template a request was refused on, if it was. */
  refusedRoute(request: FastifyRequest): string | undefined {
    return this.#refused.get(request)
  }
}

/**
 * Fastify 5 routes only GET, HEAD, TRACE, DELETE, OPTIONS, POST, PUT, PATCH and QUERY unless told of more
 * (`addHttpMethod`). Every other method Node's parser accepts (WebDAV's PROPFIND, MKCOL, LOCK..., SEARCH, PURGE...) is
 * made known here, before any route is registered: they are bodyless to Fastify (a path that is no page answers 404,
 * a page path 405, without reading a body). CONNECT never reaches the router (Node hands it to the server's `connect`
 * listener, src/connection-errors.ts).
 */
export function routeEveryMethod(instance: FastifyInstance): void {
  const known = new Set(instance.supportedMethods)
  for (const method of nodeHttp.METHODS) {
    if (method !== 'CONNECT' && !known.has(method)) instance.addHttpMethod(method)
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The paths that answer another method with 405 (plugins/method-not-allowed.ts); absent on an instance without
     * that plugin (a plugin tested on its own).
     */
    methodTable?: MethodTable
  }
}
