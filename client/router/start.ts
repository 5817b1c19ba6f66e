import { pages } from 'virtual:courier/page-routes'
import type { LoadedRouter } from './router-context.tsx'
import { createRouter, type View } from './router.ts'
import { Arrival } from './arrival.tsx'

/**
 * The client router's chunk: the router, the manifest of pages it matches against (src/build/page-manifest.ts) and
 * what a navigation does on arrival. The app loads it once the page has hydrated (client/entry-client.tsx), so none of
 * it is in a page's first load.
 */
export function startRouter(first: View): LoadedRouter {
  return { router: createRouter(pages, first), Arrival }
}
