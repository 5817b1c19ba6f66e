import { useEffect, type ComponentType } from 'react'
import { Layout } from './components/layout.tsx'
import { ErrorScreen } from './components/error-screen.tsx'
import { RootErrorBoundary } from './errors/error-boundary.tsx'
import type { DocumentState } from './document-state.ts'
import type { PageComponentProps } from './routes.ts'
import type { Router } from './router/router.ts'
import { RouteAnnouncer, RouterContext, useArrival, useView } from './router/router-context.tsx'

export interface AppProps {
  state: DocumentState
  /** The page's component, already loaded: server and client render the same tree, so hydration never suspends. */
  Page?: ComponentType<PageComponentProps<never>> | undefined
  /** The client router (browser only): from then on it decides the view. */
  router?: Router
}

/** The whole site: the shared layout around the current page or the generic error page. */
export function App({ state: documentState, Page: documentPage, router }: AppProps) {
  const view = useView(router, { state: documentState, Page: documentPage })
  const announcement = useArrival(view)
  const { state, Page } = view
  useEffect(function markHydrated() {
    // Effects run once React has hydrated the tree: from here on the page is interactive (tests wait for this).
    document.documentElement.dataset.hydrated = 'true'
  }, [])
  return (
    <RootErrorBoundary>
      <RouterContext.Provider value={router ?? null}>
        <Layout>
          {state.type === 'error' || !Page ? (
            <ErrorScreen
              statusCode={state.type === 'error' ? state.statusCode : 500}
              title={state.type === 'error' ? state.title : 'Internal Server Error'}
              digest={state.type === 'error' ? state.digest : undefined}
              host={state.type === 'error' ? state.host : undefined}
            />
          ) : (
            <Page key={view.href} data={state.data as never} params={state.params} />
          )}
        </Layout>
        <RouteAnnouncer message={announcement} />
      </RouterContext.Provider>
    </RootErrorBoundary>
  )
}
