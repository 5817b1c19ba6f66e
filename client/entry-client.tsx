import { hydrateRoot } from 'react-dom/client'
import { App } from './app.tsx'
import { documentStateElementId, type DocumentState } from './document-state.ts'
import { findPage, pages } from './routes.ts'
import { createRouter } from './router/router.ts'
import { reportClientError } from './errors/report.ts'
import './styles/global.css'

function readDocumentState(): DocumentState {
  const element = document.getElementById(documentStateElementId)
  if (!element?.textContent) throw new Error('Courier: the page carries no hydration state')
  return JSON.parse(element.textContent) as DocumentState
}

async function hydrate(): Promise<void> {
  const state = readDocumentState()
  // Load the page's chunk before hydrating, so the first client render is the server's tree, with nothing suspended.
  const page = state.type === 'page' ? findPage(state.pageId) : undefined
  const Page = page ? (await page.component()).default : undefined
  const container = document.getElementById('root')
  if (!container) throw new Error('Courier: the page has no #root element')
  const router = createRouter(pages, { state, Page, href: window.location.href })
  hydrateRoot(container, <App state={state} Page={Page} router={router} />, {
    // React recovered by rendering on the client (a hydration mismatch, a boundary that failed on the server): the
    // page works, but the server log should know.
    onRecoverableError(error) {
      console.error(error)
      reportClientError('hydration', error)
    },
  })
}

hydrate().catch((error: unknown) => {
  console.error(error)
  reportClientError('hydration', error)
})
