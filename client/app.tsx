import { useEffect, useState, type ComponentType } from 'react'
import { DocumentNonce } from './components/document-nonce.ts'
import { Layout } from '../site/layout.tsx'
import type { ErrorScreenProps } from './components/error-screen.tsx'
import { RootErrorBoundary } from './errors/error-boundary.tsx'
import type { DocumentState } from '../src/common/document-state.ts'
import type { PageComponent } from './page-modules.ts'
import type { View } from './router/router.ts'
import {
  RouteAnnouncer,
  RouterContext,
  useRouterAfterHydration,
  useView,
  type LoadedRouter,
} from './router/router-context.tsx'

export interface AppProps {
  state: DocumentState
  /** The page's component, already loaded: server and client render the same tree, so hydration never suspends. */
  Page?: PageComponent | undefined
  /** The generic error page, for an error document (or a page whose component is missing). The server bundle
   * imports it; the browser loads it before hydrating such a document only, so pages do not carry it. */
  ErrorScreen?: ComponentType<ErrorScreenProps> | undefined
  /** The URL of the document (browser only). */
  href?: string
  /** Browser only: loads the client router once the page has hydrated (it is not part of the first load). Until it
   * has arrived, links are plain links; from then on it decides the view. */
  loadRouter?: (first: View) => Promise<LoadedRouter>
  /** Server only: the response's CSP nonce, for the data scripts of a partly prerendered page's holes. */
  nonce?: string | undefined
}

/** The whole site: the shared layout around the current page or the generic error page. */
export function App({ state: documentState, Page: documentPage, ErrorScreen, href = '', loadRouter, nonce }: AppProps) {
  const [first] = useState<View>(() => ({ state: documentState, Page: documentPage, href }))
  const loaded = useRouterAfterHydration(first, loadRouter)
  const router = loaded?.router
  const view = useView(router, first)
  const [announcement, announce] = useState('')
  const { state, Page } = view
  const interactive = loaded !== undefined || !loadRouter
  useEffect(
    function markHydrated() {
      // Effects run once React has hydrated the tree, and the router (with the links' prefetching) is in place:
      // from here on the page is interactive (tests wait for this).
      if (interactive) document.documentElement.dataset.hydrated = 'true'
    },
    [interactive],
  )
  return (
    <DocumentNonce value={nonce}>
      <RootErrorBoundary>
        <RouterContext.Provider value={router ?? null}>
          <Layout>
            {state.type === 'error' || !Page ? (
              ErrorScreen ? (
                <ErrorScreen
                  statusCode={state.type === 'error' ? state.statusCode : 500}
                  title={state.type === 'error' ? state.title : 'Internal Server Error'}
                  digest={state.type === 'error' ? state.digest : undefined}
                  host={state.type === 'error' ? state.host : undefined}
                />
              ) : null
            ) : (
              <Page key={view.href} data={state.data} params={state.params} actionData={state.actionData} />
            )}
          </Layout>
          {loaded ? <loaded.Arrival view={view} announce={announce} /> : null}
          <RouteAnnouncer message={announcement} />
        </RouterContext.Provider>
      </RootErrorBoundary>
    </DocumentNonce>
  )
}
