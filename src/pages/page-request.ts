import type { FastifyRequest, Session } from 'fastify'
import type { PageRequest, PageSession } from '../common/page-types.ts'
import { errors } from '../errors.ts'

/** The request's cookies and session as @fastify/cookie and @fastify/session decorate it, when they are registered. */
interface SessionRequest {
  cookies?: Readonly<Record<string, string | undefined>>
  session?: Session & {
    get(key: string): unknown
    set(key: string, value: unknown): void
    regenerate(): Promise<void>
    destroy(): Promise<void>
  }
}

/** A request's session for pages and actions; a server without sessions has none to read and refuses to sign in. */
function sessionOf(request: FastifyRequest & SessionRequest): PageSession {
  return {
    get userId() {
      const userId = request.session?.get('userId')
      return typeof userId === 'string' ? userId : undefined
    },
    get: (key) => request.session?.get(key),
    set(key, value) {
      if (!request.session) throw new errors.SessionsOff()
      request.session.set(key, value)
    },
    async signIn(userId) {
      if (!request.session) throw new errors.SessionsOff()
      await request.session.regenerate()
      request.session.set('userId', userId)
    },
    async signOut() {
      await request.session?.destroy()
    },
  }
}

/** The request as a per-request loader reads it: made per request, reading nothing until the loader asks. */
export function pageRequestOf(request: FastifyRequest): PageRequest {
  const decorated = request as FastifyRequest & SessionRequest
  return {
    headers: request.headers,
    get cookies() {
      return decorated.cookies ?? {}
    },
    get session() {
      return sessionOf(decorated)
    },
  }
}
