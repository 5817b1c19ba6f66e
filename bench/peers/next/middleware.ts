/**
 * Courier's request filter as Next's middleware: the same exclusions (config/request-filter.ts), a fresh 128-bit
 * nonce per request handed to the page as x-nonce (Next's CSP guide), and the same policy headers.
 *
 * What Next cannot do: a page prerendered at build time (getStaticProps, the 404) is HTML on disk, written before any
 * request, so its scripts cannot carry the request's nonce. Next's guide says nonces need dynamic rendering; for
 * static pages it offers a policy without a nonce. Those paths therefore get `script-src 'self'` (Next's scripts on
 * such pages are all files from /_next/static; __NEXT_DATA__ is JSON, not script). Courier sends the nonce policy on
 * every filtered page, static ones included.
 */
import { NextResponse, type NextRequest } from 'next/server'
import site from './generated/site.json'

const { cspHead, cspTail, cspWithoutNonce, documentHeaders, dynamicPaths } = site.policy
const dynamic = new Set(dynamicPaths)

function freshNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return btoa(String.fromCharCode(...bytes))
}

export function middleware(request: NextRequest) {
  const nonce = freshNonce()
  const csp = dynamic.has(request.nextUrl.pathname) ? cspHead + nonce + cspTail : cspWithoutNonce
  const requestHeaders = new Headers(request.headers)
  requestHeaders.set('x-nonce', nonce)
  requestHeaders.set('content-security-policy', csp)
  const response = NextResponse.next({ request: { headers: requestHeaders } })
  response.headers.set('content-security-policy', csp)
  for (const [name, value] of Object.entries(documentHeaders)) response.headers.set(name, value)
  return response
}

// Next reads the matcher statically: it must be a literal. It mirrors config/request-filter.ts: first segments api,
// _next and images; /favicon.ico, /sitemap.xml, /sitemap-<n>.xml, /robots.txt, /faq and /faq/; image files anywhere.
// The bench checks at start-up that both servers filter the same paths (bench/peer-next.ts, policy parity).
export const config = {
  matcher: [
    '/((?!(?:api|_next|images)(?:/|$)|favicon\\.ico$|sitemap\\.xml$|sitemap-\\d+\\.xml$|robots\\.txt$|faq/?$|.*\\.(?:png|jpg|jpeg|gif|webp|avif|svg|ico)$).*)',
  ],
}
