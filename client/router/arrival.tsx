import { useLayoutEffect } from 'react'
import type { View } from './router.ts'

export interface ArrivalProps {
  view: View
  /** Sets the announcer's message (RouteAnnouncer, rendered by the app from the start). */
  announce: (message: string) => void
}

/**
 * After a client navigation has rendered: title and description, scroll, focus, and the announcer's message. Only a
 * client navigation arrives, so this comes with the router's chunk; it renders nothing.
 */
export function Arrival({ view, announce }: ArrivalProps) {
  useLayoutEffect(
    function arrive() {
      const arrival = view.arrival
      if (!arrival) return
      document.title = arrival.title
      const description = document.querySelector('meta[name="description"]')
      if (description && arrival.description !== undefined) description.setAttribute('content', arrival.description)
      const { scroll } = arrival
      const anchor =
        typeof scroll === 'string' && scroll ? document.getElementById(decodeURIComponent(scroll.slice(1))) : null
      if (anchor) anchor.scrollIntoView()
      else if (typeof scroll === 'string') window.scrollTo(0, 0)
      else window.scrollTo(scroll[0], scroll[1])
      // Focus moves to the new content, as a full page load would start there; the announcer names the page.
      document.getElementById('main')?.focus({ preventScroll: true })
      announce(arrival.title)
    },
    [view, announce],
  )
  return null
}
