import { caches, type CacheBounds } from '../config/caches.ts'
import { statusTitle } from '../config/status-titles.ts'
import { BoundedCache } from './bounded-cache.ts'
import { plainErrorDocument } from './render/error-documents.ts'

/** The API and everything under /_next (data, assets, images) fail in JSON; every other path gets an HTML page. */
export function answersInJson(url: string): boolean {
  return url === '/api' || url.startsWith('/api/') || url.startsWith('/api?') || url.startsWith('/_next/')
}

/** An error answer that costs no render, for moments the server must do no work (shedding load, draining). */
export interface PlainErrorAnswer {
  contentType: string
  body: string
}

/**
 * The status-title table's answers without React: JSON `{ statusCode, code, error, message }` for the API and
 * /_next, a script-free HTML page otherwise. Each is built once per status, code and format and kept
 * (config/caches.ts): `buildApp` makes one of these per instance, as `fastify.plainErrorAnswers`.
 */
export class PlainErrorAnswers {
  readonly #answers: BoundedCache<string, PlainErrorAnswer>

  constructor(bounds: CacheBounds = caches.plainErrorAnswers) {
    this.#answers = new BoundedCache(bounds, (answer, key) => (answer.body.length + key.length) * 2)
  }

  answer(url: string, statusCode: number, code: string): PlainErrorAnswer {
    const json = answersInJson(url)
    return this.#answers.getOrSet(`${statusCode}:${code}:${json}`, () => {
      const title = statusTitle(statusCode)
      return json
        ? {
            contentType: 'application/json; charset=utf-8',
            body: JSON.stringify({ statusCode, code, error: title, message: title }),
          }
        : { contentType: 'text/html; charset=utf-8', body: plainErrorDocument(statusCode) }
    })
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The plain error answers of this instance (src/error-format.ts). */
    plainErrorAnswers: PlainErrorAnswers
  }
}
