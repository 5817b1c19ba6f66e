import { randomBytes } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { sessions as limits } from '../config/sessions.ts'
import type { PageSession } from './common/page-types.ts'
import { errors } from './errors.ts'
import type { SessionRecord, SessionStore } from './session-stores.ts'

/** What the session needs of @fastify/cookie (its decorators): reading, signing and writing cookies. */
export interface CookieTools {
  parseCookie(header: string): Record<string, string | undefined>
  signCookie(value: string): string
  unsignCookie(value: string): { valid: boolean; value: string | null }
  serializeCookie(
    name: string,
    value: string,
    options: { path: string; httpOnly: boolean; sameSite: 'lax'; secure: boolean; maxAge: number },
  ): string
}

/**
 * The sessions of one app (docs/sessions.md): each request's session is read on first use only, so a request that
 * never asks (every static page, every asset) costs nothing, with or without the cookie. A session id is 24 random
 * bytes, named by a cookie signed with SESSION_SECRET.
 */
export class Sessions {
  readonly #store: SessionStore
  readonly #cookies: CookieTools

  constructor(store: SessionStore, cookies: CookieTools) {
    this.#store = store
    this.#cookies = cookies
  }

  /** The id the request's cookie names, when it is one this server signed. */
  #idOf(request: FastifyRequest): string | undefined {
    const header = request.headers.cookie
    if (!header) return undefined
    const raw = this.#cookies.parseCookie(header)[limits.cookieName]
    if (!raw) return undefined
    const unsigned = this.#cookies.unsignCookie(raw)
    return unsigned.valid && unsigned.value ? unsigned.value : undefined
  }

  /** Sets (or, without an id, clears) the session cookie on the answer, beside any other cookie it sets. */
  #setCookie(request: FastifyRequest, reply: FastifyReply | undefined, id: string | undefined): void {
    if (!reply) throw new errors.SessionNeedsReply()
    const options = {
      path: '/',
      httpOnly: true,
      sameSite: 'lax' as const,
      secure: request.protocol === 'https',
      maxAge: id ? Math.floor(limits.maxAgeMs / 1000) : 0,
    }
    const cookie = this.#cookies.serializeCookie(limits.cookieName, id ? this.#cookies.signCookie(id) : '', options)
    const had = reply.getHeader('set-cookie')
    reply.header(
      'set-cookie',
      had === undefined ? cookie : [...([] as string[]).concat(had as string | string[]), cookie],
    )
  }

  /** The request's session, read from the store when first asked; what it writes sets its cookie on `reply`. */
  of(request: FastifyRequest, reply: FastifyReply | undefined): PageSession {
    let id = this.#idOf(request)
    let loaded: Promise<SessionRecord | undefined> | undefined
    const read = () => (loaded ??= id === undefined ? Promise.resolve(undefined) : this.#store.get(id))
    const write = async (record: SessionRecord) => {
      if (id === undefined) {
        id = randomBytes(24).toString('base64url')
        this.#setCookie(request, reply, id)
      }
      await this.#store.set(id, record)
      loaded = Promise.resolve(record)
    }
    return {
      userId: async () => (await read())?.userId,
      get: async (key) => (await read())?.data[key],
      set: async (key, value) => {
        const record = (await read()) ?? { data: {}, expiresAt: Date.now() + limits.maxAgeMs }
        await write({ ...record, data: { ...record.data, [key]: value } })
      },
      signIn: async (userId) => {
        // A new id, whatever the visitor had: an id planted before the sign-in names nothing after it.
        if (id !== undefined) await this.#store.destroy(id)
        id = undefined
        await write({ userId, data: {}, expiresAt: Date.now() + limits.maxAgeMs })
      },
      signOut: async () => {
        if (id !== undefined) await this.#store.destroy(id)
        id = undefined
        loaded = Promise.resolve(undefined)
        this.#setCookie(request, reply, undefined)
      },
    }
  }
}

/** A server without sessions (a plugin tested alone): nobody is signed in, and signing in is refused. */
export const noSession: PageSession = {
  userId: async () => undefined,
  get: async () => undefined,
  set: async () => {
    throw new errors.SessionsOff()
  },
  signIn: async () => {
    throw new errors.SessionsOff()
  },
  signOut: async () => undefined,
}
