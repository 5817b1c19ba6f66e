import { createHash } from 'node:crypto'

/** A strong ETag from the bytes themselves: equal bytes, equal tag, whichever process made them. */
export function strongEtag(bytes: string | Buffer): string {
  return `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`
}

/** If-None-Match uses the weak comparison (RFC 9110 section 13.1.2): `W/"x"` matches `"x"`, `*` matches any. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false
  return header.split(',').some((candidate) => {
    const tag = candidate.trim()
    return tag === '*' || tag === etag || tag === `W/${etag}`
  })
}
