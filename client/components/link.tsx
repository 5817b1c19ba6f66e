import { useEffect, useRef, type AnchorHTMLAttributes, type MouseEvent } from 'react'
import { useRouter } from '../router/router-context.tsx'

export interface LinkProps extends AnchorHTMLAttributes<HTMLAnchorElement> {
  href: string
  /** Prefetch when near the viewport or hovered (default). */
  prefetch?: boolean
}

/** A plain left click, with nothing asking the browser for another tab, window or a download. */
function isPlainClick(event: MouseEvent<HTMLAnchorElement>, target: string | undefined, download: unknown): boolean {
  return (
    event.button === 0 &&
    !event.defaultPrevented &&
    !(event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) &&
    (!target || target === '_self') &&
    download === undefined
  )
}

/**
 * A real `<a href>`, so it works without JavaScript and before hydration. With the router: a plain click on a page
 * of this site navigates on the client, and the page is prefetched when the link nears the viewport or is hovered.
 */
export function Link({ href, prefetch = true, onClick, onMouseEnter, ...anchor }: LinkProps) {
  const router = useRouter()
  const ref = useRef<HTMLAnchorElement>(null)

  useEffect(
    function prefetchWhenNear() {
      const element = ref.current
      if (!router || !prefetch || !element) return
      return router.observe(element, href)
    },
    [router, href, prefetch],
  )

  return (
    <a
      {...anchor}
      href={href}
      ref={ref}
      onMouseEnter={(event) => {
        onMouseEnter?.(event)
        if (router && prefetch) router.prefetch(href)
      }}
      onClick={(event) => {
        onClick?.(event)
        if (!router || !isPlainClick(event, anchor.target, anchor.download) || !router.handles(href)) return
        event.preventDefault()
        void router.navigate(href)
      }}
    />
  )
}
