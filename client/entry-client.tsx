import { hydrateRoot } from 'react-dom/client'
import { App } from './app.tsx'
import { documentStateElementId, liveDataAttribute, type DocumentState } from '../src/common/document-state.ts'
import { pageModule } from './page-modules.ts'
import type { View } from './router/router.ts'
import type { LoadedRouter } from './router/router-context.tsx'
import { listenForUncaughtErrors, loadReporter, reportClientError } from './errors/deferred-report.ts'
import './styles/global.css'

function readDocumentState(): DocumentState {
  const element = document.getElementById(documentStateElementId)
  if (!element?.textContent) throw new Error('Courier: the page carries no hydration state')
  const state = JSON.parse(element.textContent) as DocumentState
  return state.type === 'page' && state.liveInHoles ? withLiveDataOfHoles(state) : state
}

/**
 * A page resumed from its kept shell: its request-time data came inside its holes (client/components/request-time.tsx),
 * each carrying the same; the page hydrates with both kinds of data, as any partly prerendered page renders.
 */
function withLiveDataOfHoles({ liveInHoles: _, ...state }: Extract<DocumentState, { type: 'page' }>): DocumentState {
  const element = document.querySelector(`script[${liveDataAttribute}]`)
  if (!element?.textContent) throw new Error('Courier: the page’s holes carry no request-time data')
  return { ...state, data: { ...(state.data as object), live: JSON.parse(element.textContent) as unknown } }
}

/**
 * What the page loads once it has hydrated, none of it in the first load: the client router with the page table (a
 * chunk of its own), and the error reporter, so that a report goes out the moment an error happens.
 */
async function loadRouter(first: View): Promise<LoadedRouter> {
  const [{ startRouter }] = await Promise.all([import('./router/start.ts'), loadReporter()])
  return startRouter(first)
}

async function hydrate(): Promise<void> {
  const state = readDocumentState()
  // Load the page's chunk before hydrating, so the first client render is the server's tree, with nothing suspended.
  const load = state.type === 'page' ? pageModule(state.pageId) : undefined
  const Page = load ? (await load()).default : undefined
  // An error document (or a page without its component) shows the generic error page: its chunk, likewise.
  const ErrorScreen = Page ? undefined : (await import('./components/error-screen.tsx')).ErrorScreen
  const container = document.getElementById('root')
  if (!container) throw new Error('Courier: the page has no #root element')
  const app = (
    <App state={state} Page={Page} ErrorScreen={ErrorScreen} href={window.location.href} loadRouter={loadRouter} />
  )
  hydrateRoot(container, app, {
    // React recovered by rendering on the client (a hydration mismatch, a boundary that failed on the server): the
    // page works, but the server log should know.
    onRecoverableError(error) {
      console.error(error)
      reportClientError('hydration', error)
    },
  })
}

// From the first script on, the page's uncaught errors and rejections reach the server's log.
listenForUncaughtErrors()
hydrate().catch((error: unknown) => {
  console.error(error)
  reportClientError('hydration', error)
})
