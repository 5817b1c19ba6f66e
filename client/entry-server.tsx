/**
 * The server's view of the client: built by Vite into dist/server (or loaded live in development) and handed to the
 * server by @fastify/vite. It gives the element to render for a document state; the server owns the page table,
 * streaming and the document around the app (plugins/pages.ts).
 */
import { App } from './app.tsx'
import { ErrorScreen } from './components/error-screen.tsx'
import { pageModule } from './page-modules.ts'
import type { DocumentState } from '../site/document-state.ts'

/** `nonce`: the response's CSP nonce (none for a document kept for the deployment, or a shell). */
export async function createElement(state: DocumentState, nonce?: string) {
  const load = state.type === 'page' ? pageModule(state.pageId) : undefined
  const Page = load ? (await load()).default : undefined
  return <App state={state} Page={Page} ErrorScreen={ErrorScreen} nonce={nonce} />
}
