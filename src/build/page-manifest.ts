import path from 'node:path'
import type { Plugin } from 'vite'
import type { PageRoute } from '../common/page-types.ts'
import { listPageFiles, pageFolders } from '../pages/page-files.ts'
import { importPageSources } from '../pages/page-sources.ts'
import { joinPageSources } from '../pages/site.ts'

/** The router's table: in the router's chunk, loaded after hydration. */
const routesId = 'virtual:courier/page-routes'
/** Each page's code chunk: in the entry, which loads the first page's. */
const modulesId = 'virtual:courier/page-modules'
const resolved = (id: string) => `\0${id}`

export interface PageManifestOptions {
  /** The project root: holds site/pages/ (and test/site/pages/). */
  root: string
  /** The test build: its pages are the site's and the test pages of test/site/pages/. */
  testPages: boolean
}

/**
 * The client's manifest of pages: `virtual:courier/page-routes`, each page's id, path, kind and freshness in matching
 * order (for the router's chunk), and `virtual:courier/page-modules`, each page's code chunk (for the entry): two
 * modules, so the table stays out of the first load. It is read from the page
 * modules by the build itself (the same checks as the server's start: a page module that breaks the convention fails
 * the build, naming its file); heads and server halves stay out, so the router's chunk holds paths only.
 */
export function pageManifest(options: PageManifestOptions): Plugin {
  return {
    name: 'courier:page-manifest',
    resolveId(id) {
      return id === routesId || id === modulesId ? resolved(id) : undefined
    },
    async load(id) {
      if (id === resolved(modulesId)) {
        const files = listPageFiles(options.root, pageFolders(options.testPages))
        const importers = files.map(
          (file) =>
            `  ${JSON.stringify(file.id)}: () => import(${JSON.stringify(path.join(options.root, file.file))}),`,
        )
        return `export const pageModules = {\n${importers.join('\n')}\n}\n`
      }
      if (id !== resolved(routesId)) return undefined
      const files = listPageFiles(options.root, pageFolders(options.testPages))
      for (const file of files) {
        this.addWatchFile(path.join(options.root, file.file))
        if (file.serverFile) this.addWatchFile(path.join(options.root, file.serverFile))
      }
      const pages = joinPageSources(await importPageSources(options.root, files))
      const routes: PageRoute[] = pages.map(({ id, path, kind, revalidate }) =>
        revalidate === undefined ? { id, path, kind } : { id, path, kind, revalidate },
      )
      return `export const pages = ${JSON.stringify(routes)}\n`
    },
  }
}
