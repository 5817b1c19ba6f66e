import type { FastifyReply, FastifyRequest } from 'fastify'
import { parseCookie } from 'cookie'
import type { PageRequest, PageSession } from '../common/page-types.ts'
import { noSession } from '../session.ts'

/**
 * The request as a per-request loader, an action or a route reads it: its cookies parsed and its session read on first
 * use; what the session writes sets its cookie on `reply` (a policy step, which has none, only reads it). A class, not
 * an object literal with getters: one is made for every page request, and a literal's getters are closures that
 * held the request long enough for V8 to move them to the old space (a full collection every ~170 ms under load).
 */
class RequestView implements PageRequest {
  readonly #request: FastifyRequest
  readonly #reply: FastifyReply | undefined
  #cookies: Readonly<Record<string, string | undefined>> | undefined

  constructor(request: FastifyRequest, reply: FastifyReply | undefined) {
    this.#request = request
    this.#reply = reply
  }

  get headers(): PageRequest['headers'] {
    return this.#request.headers
  }

  get cookies(): Readonly<Record<string, string | undefined>> {
    const header = this.#request.headers.cookie
    return (this.#cookies ??= header ? parseCookie(header) : {})
  }

  get session(): PageSession {
    return this.#request.server.sessions?.of(this.#request, this.#reply) ?? noSession
  }
}

export function pageRequestOf(request: FastifyRequest, reply?: FastifyReply): PageRequest {
  return new RequestView(request, reply)
}
