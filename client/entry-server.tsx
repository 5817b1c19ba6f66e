/**
 * The server's view of the client: built by Vite into dist/server (or loaded live in dev) and handed to Fastify by
 * @fastify/vite. It exports the page table and the element to render; the server owns streaming and the document.
 */
import { App } from './app.tsx'
import { ErrorScreen } from './components/error-screen.tsx'
import { pages, type PageDefinition } from './routes.ts'
import type { DocumentState } from './document-state.ts'

export { pages }

/** @fastify/vite registers one route per entry of `routes` through Courier's createRoute hook. */
export const routes: readonly PageDefinition[] = pages

export async function createElement(state: DocumentState, page: PageDefinition | undefined) {
  const Page = page ? (await page.component()).default : undefined
  return <App state={state} Page={Page} ErrorScreen={ErrorScreen} />
}
