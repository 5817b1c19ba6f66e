import { readdirSync } from 'node:fs'
import path from 'node:path'
import type { FastifyPluginAsync } from 'fastify'
import { errors } from './errors.ts'

/** The site's own routes and plugins: a folder of the site's (docs/your-routes.md). */
export const siteRouteFolder = 'site/routes'

/** The test build's routes (served with COURIER_TEST_ROUTES only). */
export const testRouteFolder = 'test/site/routes'

/** The folders route plugins are read from: the site's, and the test build's too when it is asked for. */
export function siteRouteFolders(testRoutes: boolean): string[] {
  return testRoutes ? [siteRouteFolder, testRouteFolder] : [siteRouteFolder]
}

/**
 * The route plugins of `folders` (under `root`), relative to the root, in file-name order: every `.ts` file is one
 * (a helper module belongs beside the folder, not in it); anything else there fails the start naming it. A folder
 * that does not exist holds none.
 */
export function listSiteRouteFiles(root: string, folders: readonly string[]): string[] {
  const files: string[] = []
  for (const folder of folders) {
    let names: string[]
    try {
      names = readdirSync(path.join(root, folder)).sort()
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue
      throw error
    }
    for (const name of names) {
      if (!name.endsWith('.ts') || name.endsWith('.d.ts')) {
        throw new errors.SiteRouteInvalid(`${folder}/${name}`, 'not a route plugin: the folder holds .ts plugins only')
      }
      files.push(`${folder}/${name}`)
    }
  }
  return files
}

/** A route plugin of the site's, as imported: its file and its default export. */
export interface SiteRoute {
  file: string
  plugin: unknown
}

/** The plugin a route file exports, checked: one that exports none fails the start naming its file. */
export function sitePluginOf(route: SiteRoute): FastifyPluginAsync {
  if (typeof route.plugin !== 'function') {
    throw new errors.SiteRouteInvalid(route.file, 'no default export: a Fastify plugin, async (fastify) => { ... }')
  }
  return route.plugin as FastifyPluginAsync
}
