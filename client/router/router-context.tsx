import { createContext, useContext, useEffect, useLayoutEffect, useState, useSyncExternalStore } from 'react'
import { reportClientError } from '../errors/deferred-report.ts'
import type { Router, View } from './router.ts'

/** The router of the page, or null where there is none (server rendering): Links then stay plain links. */
export const RouterContext = createContext<Router | null>(null)

export function useRouter(): Router | null {
  return useContext(RouterContext)
}

function subscribeToNothing(): () => void {
  return () => undefined
}

/**
 * The client router, loaded once the page has hydrated, starting on `first` (the view on screen): undefined while it
 * loads, and wherever `load` is not given (the server); null when it could not load (links stay plain links).
 */
export function useRouterAfterHydration(
  first: View,
  load: ((first: View) => Promise<Router>) | undefined,
): Router | null | undefined {
  const [router, setRouter] = useState<Router | null>()
  const [start] = useState(() => load)
  useEffect(
    function loadRouter() {
      start?.(first).then(setRouter, (error: unknown) => {
        console.error(error)
        reportClientError('hydration', error)
        setRouter(null)
      })
    },
    [start, first],
  )
  return router
}

/** The view to render: the router's once it is there, else the document's own (`first`, also the router's first). */
export function useView(router: Router | undefined, first: View): View {
  const read = router ? router.view : () => first
  return useSyncExternalStore(router ? router.subscribe : subscribeToNothing, read, read)
}

/** After a client navigation has rendered: title and description, scroll, focus, and the announcer's message. */
export function useArrival(view: View): string {
  const [announcement, setAnnouncement] = useState('')
  useLayoutEffect(
    function arrive() {
      const arrival = view.arrival
      if (!arrival) return
      document.title = arrival.title
      const description = document.querySelector('meta[name="description"]')
      if (description && arrival.description !== undefined) description.setAttribute('content', arrival.description)
      const { scroll } = arrival
      const anchor = typeof scroll === 'string' && scroll ? document.getElementById(decodeURIComponent(scroll.slice(1))) : null
      if (anchor) anchor.scrollIntoView()
      else if (typeof scroll === 'string') window.scrollTo(0, 0)
      else window.scrollTo(scroll[0], scroll[1])
      // Focus moves to the new content, as a full page load would start there; the announcer names the page.
      document.getElementById('main')?.focus({ preventScroll: true })
      setAnnouncement(arrival.title)
    },
    [view],
  )
  return announcement
}

/** Read out by screen readers on every client navigation: the new page's title. */
export function RouteAnnouncer({ message }: { message: string }) {
  return (
    <div className="route-announcer" aria-live="assertive" aria-atomic="true">
      {message}
    </div>
  )
}
