import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { projectRoot } from '../config/env.ts'
import { errors } from './errors.ts'
import { listSiteRouteFiles, siteRouteFolders, type SiteRoute } from './site-route-files.ts'

/**
 * The site's route plugins (site/routes/), and with `testRoutes` the test build's (test/site/routes/), imported from
 * the TypeScript sources. The server build (src/build/server-build.ts) replaces this module with one that imports the
 * same files by name; a production build has no test routes.
 */
export async function loadSiteRoutes(testRoutes: boolean): Promise<SiteRoute[]> {
  const files = listSiteRouteFiles(projectRoot, siteRouteFolders(testRoutes))
  return Promise.all(
    files.map(async (file) => {
      let module: { default?: unknown }
      try {
        module = (await import(pathToFileURL(path.join(projectRoot, file)).href)) as { default?: unknown }
      } catch (error) {
        throw new errors.SiteRouteInvalid(
          file,
          `it failed to load: ${error instanceof Error ? error.message : String(error)}`,
        )
      }
      return { file, plugin: module.default }
    }),
  )
}
