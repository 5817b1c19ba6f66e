import { router as timings } from '../../config/router.ts'

/** Calls back once per element when it comes within `prefetchMarginPx` of the viewport; returns the undo. */
export type NearViewport = (element: Element, onNear: () => void) => () => void

/**
 * One IntersectionObserver (`rootMargin: 200px`) for every Link of the page. Where the browser has none, nothing is
 * ever near: hover still prefetches.
 */
export function createNearViewport(): NearViewport {
  if (typeof IntersectionObserver !== 'function') return () => () => undefined
  const callbacks = new Map<Element, () => void>()
  const observer = new IntersectionObserver(
    function reportNear(records) {
      for (const record of records) {
        const onNear = callbacks.get(record.target)
        if (!record.isIntersecting || !onNear) continue
        observer.unobserve(record.target)
        callbacks.delete(record.target)
        onNear()
      }
    },
    { rootMargin: `${timings.prefetchMarginPx}px` },
  )
  return (element, onNear) => {
    callbacks.set(element, onNear)
    observer.observe(element)
    return () => {
      callbacks.delete(element)
      observer.unobserve(element)
    }
  }
}
