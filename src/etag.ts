import { createHash, type Hash } from 'node:crypto'

/** A strong ETag from the bytes themselves: equal bytes, equal tag, whichever process made them. */
export function strongEtag(bytes: string | Buffer): string {
  return strongEtagOf(createHash('sha256').update(bytes))
}

/** The same tag from a SHA-256 fed the bytes piece by piece (a file read in chunks). */
export function strongEtagOf(hash: Hash): string {
  return `"${hash.digest('base64url').slice(0, 27)}"`
}

/** If-None-Match uses the weak comparison (RFC 9110 section 13.1.2): `W/"x"` matches `"x"`, `*` matches any. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false
  return header.split(',').some((candidate) => {
    const tag = candidate.trim()
    return tag === '*' || tag === etag || tag === `W/${etag}`
  })
}

/**
 * The tag of one encoding of a representation: its own (a cache must not take gzip bytes for brotli ones under one
 * strong tag), as @fastify/compress does, by a suffix inside the quotes: `"x"` -> `"x-br"`, `"x-gzip"`, `"x-zstd"`.
 */
export function encodedEtag(etag: string, coding: 'identity' | 'br' | 'gzip' | 'zstd'): string {
  return coding === 'identity' ? etag : `${etag.slice(0, -1)}-${coding}"`
}

/** Whether If-None-Match names any encoding of the representation tagged `etag`: its content has not changed. */
export function matchesAnyEncoding(header: string | undefined, etag: string): boolean {
  return (['identity', 'br', 'gzip', 'zstd'] as const).some((coding) =>
    matchesIfNoneMatch(header, encodedEtag(etag, coding)),
  )
}
