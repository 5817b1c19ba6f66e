import { regeneration } from '../../config/content.ts'
import type { PageDefinition } from '../common/page-types.ts'

/**
 * Cache-Control of everything a page answers, its document and its page data alike (docs/page-data-and-router.md "Page
 * kinds"). Documents of filtered pages carry a per-request CSP nonce, which no shared cache may replay, and a site step
 * of the request filter (an auth gate) may guard a page and so its data: both stay `private`. `static` answers may be
 * kept by the browser and revalidated; `dynamic` ones are computed for one request and never stored; error answers
 * never either.
 */
export const pageCacheControl = Object.freeze({
  static: 'private, no-cache',
  dynamic: 'private, no-cache, no-store, max-age=0, must-revalidate',
  error: 'no-store',
} as const)

/**
 * The Cache-Control of a page's document or data. A `static` page with `revalidate` tells a shared cache (a CDN) the
 * same freshness the server keeps: `s-maxage` its seconds, then `stale-while-revalidate` while the CDN asks again;
 * browsers (`max-age=0`) revalidate with their ETag. A document that carries a per-request nonce stays `private`:
 * a shared cache would hand one request's nonce to every visitor. A page a site step guards (an auth gate) must not
 * declare `revalidate`: its data would be shared too (docs/content.md).
 */
export function pageCacheControlOf(page: Pick<PageDefinition, 'kind' | 'revalidate'>, carriesNonce: boolean): string {
  if (page.kind !== 'static' || page.revalidate === undefined || carriesNonce) return pageCacheControl[page.kind]
  return (
    `public, max-age=0, s-maxage=${page.revalidate}, ` +
    `stale-while-revalidate=${regeneration.cdnStaleWhileRevalidateS}`
  )
}

/**
 * A `dynamic` page's answer may be a visitor's own (its loader may read the request's cookies and session): besides
 * `private, no-store`, it varies by `Cookie`, so no cache in between (a proxy, a CDN told to ignore `private`) can
 * hand it to another visitor.
 */
export function variesByVisitor(cacheControl: string): boolean {
  return cacheControl === pageCacheControl.dynamic
}

/** The header that says whether a kept page with `revalidate` was served fresh or stale (docs/content.md). */
export const pageCacheHeader = 'x-courier-cache'
