import type { FastifyReply, FastifyRequest } from 'fastify'
import { parseCookie } from 'cookie'
import type { PageRequest } from '../common/page-types.ts'
import { noSession } from '../session.ts'

/**
 * The request as a per-request loader, an action or a route reads it: its cookies parsed and its session read on first
 * use; what the session writes sets its cookie on `reply` (a policy step, which has none, only reads it).
 */
export function pageRequestOf(request: FastifyRequest, reply?: FastifyReply): PageRequest {
  let cookies: Readonly<Record<string, string | undefined>> | undefined
  return {
    headers: request.headers,
    get cookies() {
      const header = request.headers.cookie
      return (cookies ??= header ? parseCookie(header) : {})
    },
    get session() {
      return request.server.sessions?.of(request, reply) ?? noSession
    },
  }
}
