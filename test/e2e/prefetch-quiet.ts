/**
 * The router's prefetch quiet, as a "not prefetched" check waits for it (docs/page-data-and-router.md "The client
 * router"): `<html data-prefetch>` reads `busy` while a prefetch is queued or in flight, `quiet` once none is. A Link
 * that nears the viewport is reported by the IntersectionObserver after the next frame is drawn: the check lets two
 * frames pass first, so a prefetch a scroll is about to start is started (and the router busy) before it reads.
 */

/** Page function: resolves after two drawn frames (or after 1 s where the page draws none: a hidden tab). */
export function afterTwoFrames(): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(true), 1000)
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        clearTimeout(timer)
        resolve(true)
      }),
    )
  })
}

/** Page function: the router has no prefetch queued or in flight. */
export function prefetchIsQuiet(): boolean {
  return document.documentElement.dataset.prefetch === 'quiet'
}
