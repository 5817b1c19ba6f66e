import type { FastifyRequest } from 'fastify'
import type { PageRequest } from '../common/page-types.ts'

/** The request's cookies as a plugin that parses them decorates it (@fastify/cookie), when one does. */
interface CookieRequest {
  cookies?: Readonly<Record<string, string | undefined>>
}

/** The request as a per-request loader reads it: made per request, reading nothing until the loader asks. */
export function pageRequestOf(request: FastifyRequest): PageRequest {
  return {
    headers: request.headers,
    get cookies() {
      return (request as FastifyRequest & CookieRequest).cookies ?? {}
    },
  }
}
