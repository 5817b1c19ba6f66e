import type { SpanAttributes } from './tracing.ts'

/**
 * `url.full` as a span holds it: scheme, host, port and path, never credentials or the query (docs/operations.md
 * "Traces").
 */
export function spanUrlOf(url: URL): string {
  return `${url.origin}${url.pathname}`
}

/**
 * A request to another service as its CLIENT span describes it, after the HTTP client semantic conventions:
 * `http.request.method`, `server.address`, `server.port` (the scheme's default when the URL names none) and `url.full`.
 */
export function httpClientAttributes(method: string, url: URL): SpanAttributes {
  return {
    'http.request.method': method,
    'server.address': url.hostname.replace(/^\[|\]$/g, ''),
    'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
    'url.full': spanUrlOf(url),
  }
}
