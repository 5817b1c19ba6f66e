import type { CacheEntryMeta } from './disk-cache.ts'

/** Headers of every image response (a 200), computed once per cache entry. */
export function imageHeaders(meta: CacheEntryMeta): Record<string, string> {
  return {
    'content-type': meta.contentType,
    'content-length': String(meta.size),
    'cache-control': `public, max-age=${meta.maxAgeS}, must-revalidate`,
    etag: meta.etag,
    vary: 'Accept',
    'content-security-policy': "script-src 'none'; frame-src 'none'; sandbox;",
    'content-disposition': `inline; filename="${meta.filename}"`,
    'x-content-type-options': 'nosniff',
  }
}

/**
 * What a 304 keeps of the headers set before the handler: the validators' own three (RFC 9110 section 15.4.5: what
 * updates the cached response), plus the request id and HSTS, which belong to every response, not to the
 * representation.
 */
export const keptOnNotModified: ReadonlySet<string> = new Set([
  'etag',
  'cache-control',
  'vary',
  'x-request-id',
  'strict-transport-security',
])
