import { createContext, useContext, useLayoutEffect, useState, useSyncExternalStore } from 'react'
import type { Router, View } from './router.ts'

/** The router of the page, or null where there is none (server rendering): Links then stay plain links. */
export const RouterContext = createContext<Router | null>(null)

export function useRouter(): Router | null {
  return useContext(RouterContext)
}

function subscribeToNothing(): () => void {
  return () => undefined
}

/** The view to render: the router's, else (on the server) the document's own. */
export function useView(router: Router | undefined, first: Omit<View, 'href'>): View {
  const [own] = useState<View>(() => ({ ...first, href: '' }))
  const read = router ? router.view : () => own
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
