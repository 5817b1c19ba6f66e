import type { FastifyRequest } from 'fastify'
import type { PageRequest } from '../common/page-types.ts'
import { noSession } from '../session.ts'

/** The request as a per-request loader or an action reads it: its cookies parsed and its session read on first use. */
export function pageRequestOf(request: FastifyRequest): PageRequest {
  let cookies: Readonly<Record<string, string | undefined>> | undefined
  return {
    headers: request.headers,
    get cookies() {
      const header = request.headers.cookie
      return (cookies ??= header && request.server.parseCookie ? request.server.parseCookie(header) : {})
    },
    get session() {
      return request.server.sessions?.of(request) ?? noSession
    },
  }
}
