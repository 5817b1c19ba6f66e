import path from 'node:path'
import type { Plugin } from 'vite'

const moduleId = 'virtual:courier/extra-pages'
const resolvedId = `\0${moduleId}`

export interface ExtraPagesOptions {
  /** A module exporting `testPages` and `testPageModules` (test/site/pages.ts), or none: a production build. */
  from: string | undefined
}

/**
 * Pages a build adds to the site's own (client/page-modules.ts, client/router/start.ts): the test build's, imported
 * from the tests' folder, or none. A production build resolves the module to empty lists, so no test page, chunk or
 * text is in it (test/build/client-bundle.test.ts checks).
 */
export function extraPages(options: ExtraPagesOptions): Plugin {
  return {
    name: 'courier-extra-pages',
    resolveId(id) {
      return id === moduleId ? resolvedId : undefined
    },
    load(id) {
      if (id !== resolvedId) return undefined
      if (!options.from) return 'export const extraPages = []\nexport const extraPageModules = {}\n'
      const from = JSON.stringify(path.resolve(options.from))
      return `export { testPages as extraPages, testPageModules as extraPageModules } from ${from}\n`
    },
  }
}
