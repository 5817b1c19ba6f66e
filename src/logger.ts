import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { LoggerOptions } from 'pino'
import type { LogLevel } from '../config/env.ts'

/** Header values that must never reach a log line (docs/operations.md "Logs"). */
export const redactedPaths = [
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["proxy-authorization"]',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
]

/** Query parameters whose values are secrets wherever they appear (`?token=...`). */
const secretQueryKeys = new RegExp(
  '^(?:token|access_token|id_token|refresh_token|code|password|passwd|secret|' +
    'api[_-]?key|key|signature|sig|auth|session)$',
  'i',
)

/** The URL as logged: path and query keys kept, secret values replaced. */
export function loggableUrl(url: string): string {
  const queryAt = url.indexOf('?')
  if (queryAt === -1) return url
  const query = url
    .slice(queryAt + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=')
      const key = equals === -1 ? pair : pair.slice(0, equals)
      let decodedKey = key
      try {
        decodedKey = decodeURIComponent(key)
      } catch {
        // A malformed key is logged as sent; it is not a secret name either way.
      }
      return equals !== -1 && secretQueryKeys.test(decodedKey) ? `${key}=[Redacted]` : pair
    })
  return `${url.slice(0, queryAt)}?${query.join('&')}`
}

export function loggerOptions(level: LogLevel): LoggerOptions {
  return {
    level,
    redact: { paths: redactedPaths, censor: '[Redacted]' },
    serializers: {
      req(request: { method: string; url: string }) {
        return { method: request.method, url: loggableUrl(request.url) }
      },
    },
  }
}

/** A well-formed incoming x-request-id (1-64 of [A-Za-z0-9._-]) is kept, so one id follows a request across hops. */
const requestIdPattern = /^[A-Za-z0-9._-]{1,64}$/

export function generateRequestId(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id']
  if (typeof incoming === 'string' && requestIdPattern.test(incoming)) return incoming
  return randomUUID()
}
