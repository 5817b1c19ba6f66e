import { createHash, timingSafeEqual } from 'node:crypto'

/**
 * The token of an `Authorization` header in the Bearer scheme (RFC 6750), the scheme's name in any case (RFC 9110
 * 11.1: `Bearer`, `bearer` and `BEARER` are one scheme); undefined for any other header.
 */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^bearer +([\x21-\x7e]+) *$/i.exec(header ?? '')
  return match?.[1]
}

/** A fixed-length digest of a token: timingSafeEqual compares equal lengths only, and a token's length is no hint. */
function digestOf(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest()
}

/**
 * Checks presented tokens against one secret in constant time: both sides hashed to 32 bytes and compared with
 * timingSafeEqual, so neither the time taken nor an early exit tells how much of a guess was right, or its length.
 */
export function tokenCheck(secret: string): (presented: string | undefined) => boolean {
  const expected = digestOf(secret)
  return function matchesToken(presented) {
    // A missing token is compared too (with an empty one): no faster "no" for a request without one.
    return timingSafeEqual(digestOf(presented ?? ''), expected) && presented !== undefined
  }
}
