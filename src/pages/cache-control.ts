/**
 * Cache-Control of everything a page answers, its document and its page data alike (docs/page-data-and-router.md "Page kinds"). Documents of
 * filtered pages carry a per-request CSP nonce, which no shared cache may replay, and a site step of the request
 * filter (an auth gate) may guard a page and so its data: both stay `private`. `static` answers may be kept by the
 * browser and revalidated; `dynamic` ones are computed for one request and never stored; error answers never either.
 */
export const pageCacheControl = Object.freeze({
  static: 'private, no-cache',
  dynamic: 'private, no-cache, no-store, max-age=0, must-revalidate',
  error: 'no-store',
} as const)
