import { pageModules } from 'virtual:courier/page-modules'
import type { PageModule } from '../src/common/page-types.ts'

export type { PageComponent, PageComponentProps, PageModule } from '../src/common/page-types.ts'

/**
 * The loader of page `id`'s code chunk (its module `site/pages/<id>.tsx`, the chunk named after it: the server finds a
 * page's chunks to preload by that name), if the site has that page. The client entry loads the first page's chunk
 * from here, the router every later one; the build writes the table (src/build/page-manifest.ts).
 */
export function pageModule(id: string): (() => Promise<PageModule>) | undefined {
  return Object.prototype.hasOwnProperty.call(pageModules, id) ? pageModules[id] : undefined
}
