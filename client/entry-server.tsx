/**
 * The server's view of the client: built by Vite into dist/server (or loaded live in development) and handed to the
 * server by @fastify/vite. It gives the element to render for a document state; the server owns the page table,
 * streaming and the document around the app (plugins/pages.ts).
 */
import { App } from './app.tsx'
import { ErrorScreen } from './components/error-screen.tsx'
import { pageModule, type PageModule } from './page-modules.ts'
import type { DocumentState } from '../src/common/document-state.ts'

/**
 * Each page's module once it has loaded: the server renders the same few pages again and again, and an `import()` of
 * a module already loaded still goes through Node's module loader (resolution, module job) on every call. Bounded by
 * the page table; a load that failed is not kept.
 */
const loadedPages = new Map<string, PageModule>()

async function pageOf(pageId: string): Promise<PageModule | undefined> {
  const loaded = loadedPages.get(pageId)
  if (loaded) return loaded
  const load = pageModule(pageId)
  const module = load ? await load() : undefined
  if (module) loadedPages.set(pageId, module)
  return module
}

/** `nonce`: the response's CSP nonce (none for a document kept for the deployment, or a shell). */
export async function createElement(state: DocumentState, nonce?: string) {
  const Page = state.type === 'page' ? (await pageOf(state.pageId))?.default : undefined
  return <App state={state} Page={Page} ErrorScreen={ErrorScreen} nonce={nonce} />
}
