/**
 * Client router timings. What each does: docs/page-data-and-router.md "The client router".
 * The client bundle imports this file, so it holds plain data only.
 */
export const router = Object.freeze({
  /** A route whose code and data are not both in by then falls back to a full page navigation. */
  routeLoadTimeoutMs: 3800,
  /** IntersectionObserver rootMargin: a Link this close to the viewport is prefetched. */
  prefetchMarginPx: 200,
  /** How long prefetched or visited data of a `static` page stays fresh. */
  staticStaleTimeS: 300,
  /** A page that declares `revalidate: N` keeps its data at most N s (when shorter than the above); and a navigation
   * that shows kept data older than this asks the server again behind it (a conditional GET, mostly a 304), so the
   * next visit shows what a revalidation changed, as Next's pages router does. Not younger data: a link prefetched a
   * moment before its click needs no second request. */
  revalidatingRefreshAfterS: 5,
  /** Dynamic pages: data is never reused; it is fetched at navigation. */
  dynamicStaleTimeS: 0,
  /** Prefetches run through one queue, this many at a time. */
  prefetchConcurrency: 5,
  /**
   * Page-data fetches: attempts in all on a 5xx or network error (docs/page-data-and-router.md "The client router").
   */
  dataFetchAttempts: 3,
  /** Backoff before retry n (ms), short so a navigation still feels immediate (ours). */
  dataFetchBackoffMs: Object.freeze([100, 300]),
})
