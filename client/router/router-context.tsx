import { createContext, useContext, useEffect, useState, useSyncExternalStore, type ComponentType } from 'react'
import { reportClientError } from '../errors/deferred-report.ts'
import type { ArrivalProps } from './arrival.tsx'
import type { Router, View } from './router.ts'

/** The router of the page, or null where there is none (server rendering): Links then stay plain links. */
export const RouterContext = createContext<Router | null>(null)

export function useRouter(): Router | null {
  return useContext(RouterContext)
}

function subscribeToNothing(): () => void {
  return () => undefined
}

/** What the router's chunk (router/start.ts) brings: the router, and what a client navigation does on arrival. */
export interface LoadedRouter {
  router: Router
  Arrival: ComponentType<ArrivalProps>
}

/**
 * The client router, loaded once the page has hydrated, starting on `first` (the view on screen): undefined while it
 * loads, and wherever `load` is not given (the server); null when it could not load (links stay plain links).
 */
export function useRouterAfterHydration(
  first: View,
  load: ((first: View) => Promise<LoadedRouter>) | undefined,
): LoadedRouter | null | undefined {
  const [router, setRouter] = useState<LoadedRouter | null>()
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

/**
 * Whether a client navigation is loading the next page (the router's `loading` state): false on the server, while the
 * router loads, and once the page is shown. The layout marks the content `aria-busy` meanwhile.
 */
export function useNavigating(): boolean {
  const router = useRouter()
  const read = () => router?.navigation().status === 'loading'
  return useSyncExternalStore(router ? router.subscribe : subscribeToNothing, read, notNavigating)
}

function notNavigating(): boolean {
  return false
}

/** Read out by screen readers on every client navigation: the new page's title. */
export function RouteAnnouncer({ message }: { message: string }) {
  return (
    <div className="route-announcer" aria-live="assertive" aria-atomic="true">
      {message}
    </div>
  )
}
