import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { errors } from '../src/errors.ts'
import { MethodTable, type MethodTableRouterOptions } from '../src/method-not-allowed.ts'

export interface MethodNotAllowedOptions {
  /** The site router's options (src/app.ts): the table reads a path as the router does. */
  routerOptions: MethodTableRouterOptions
}

/**
 * 405 with `Allow` for a method a path does not take (docs/errors.md). The plugins that own such paths (pages, page
 * data, content images, client errors, revalidation) enter each once in `fastify.methodTable`; a request that reached
 * no route is looked up there at onRequest, after the hooks before it (tracing, load shedding, the request filter)
 * and before any body is read or parsed, so a POST of any type or size to a page path still learns which methods it
 * takes; a GET or HEAD, which has no body to read, in the not-found handler. A request that reached a route costs
 * one check of `request.is404`. Registered before the plugins that fill the table.
 */
async function methodNotAllowed(fastify: FastifyInstance, options: MethodNotAllowedOptions) {
  const { routerOptions } = options
  if (!routerOptions || typeof routerOptions.maxParamLength !== 'number') {
    throw new errors.OptionInvalid('routerOptions', "the site router's options (ignoreTrailingSlash, maxParamLength)")
  }
  const table = new MethodTable(routerOptions)
  fastify.decorate('methodTable', table)
  fastify.addHook(
    'onRequest',
    function refuseOtherMethods(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
      // GET and HEAD carry no body Fastify reads: the not-found handler answers their 405 (plugins/errors.ts), so a
      // GET that is a 404, the usual request that reaches no route, looks the table up once.
      if (!request.is404 || request.method === 'GET' || request.method === 'HEAD') return done()
      const refusal = table.refusal(request, reply)
      if (refusal) return done(refusal)
      done()
    },
  )
}

export default fp(methodNotAllowed, { name: 'courier-method-not-allowed', fastify: '5.x' })
