import type { FastifyRequest } from 'fastify'

/** Methods that change something: only these are judged (a GET or HEAD from anywhere is a link or an image). */
export const unsafeMethods: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** What a request says of where it was sent from, and whether that is this site. */
export type SenderVerdict = { sameSite: true } | { sameSite: false; from: string }

/** The origin of a URL, or undefined when it is none (`null`, garbage, an opaque one). */
function originOf(url: string): string | undefined {
  try {
    const origin = new URL(url).origin
    return origin === 'null' ? undefined : origin
  } catch {
    return undefined
  }
}

/**
 * Whether a request was sent from this site's own pages, as the Fetch Metadata and OWASP guidance read a request:
 * its `Origin` when it has one (browsers send it with every cross-site and every same-origin unsafe request), else its
 * `Sec-Fetch-Site` (`same-origin`, or `none`: the user's own action, a bookmark), else its `Referer`'s origin. A
 * request with none of them is no browser's cross-site request (a webhook, curl, another server): it is not judged
 * here, and its route's own authentication decides. `siteOrigins`: the site's public origin (SITE_URL) and the
 * origin the request itself names (its scheme and Host as the trusted proxy says).
 */
export function judgeSender(request: FastifyRequest, siteOrigins: ReadonlyArray<string | undefined>): SenderVerdict {
  const origin = request.headers.origin
  if (origin !== undefined) {
    return origin !== 'null' && siteOrigins.includes(origin)
      ? { sameSite: true }
      : { sameSite: false, from: `Origin ${origin}` }
  }
  const fetchSite = request.headers['sec-fetch-site']
  if (typeof fetchSite === 'string') {
    return fetchSite === 'same-origin' || fetchSite === 'none'
      ? { sameSite: true }
      : { sameSite: false, from: `Sec-Fetch-Site ${fetchSite}` }
  }
  const referer = request.headers.referer
  if (referer !== undefined) {
    const refererOrigin = originOf(referer)
    return refererOrigin !== undefined && siteOrigins.includes(refererOrigin)
      ? { sameSite: true }
      : { sameSite: false, from: `Referer ${refererOrigin ?? 'unreadable'}` }
  }
  return { sameSite: true }
}
