import { pathToFileURL } from 'node:url'
import path from 'node:path'
import { projectRoot } from '../../config/env.ts'
import { listPageFiles, pageFolders, type PageFile } from './page-files.ts'
import { registerTsxHook } from './tsx-hook.ts'

/** A page's files, imported: its module's exports and its server half's. */
export interface PageSource extends PageFile {
  module: Readonly<Record<string, unknown>>
  server: Readonly<Record<string, unknown>> | undefined
}

/** Imports the pages of `files` from the TypeScript sources (under `root`). */
export async function importPageSources(root: string, files: readonly PageFile[]): Promise<PageSource[]> {
  await registerTsxHook()
  const load = (file: string) => import(pathToFileURL(path.join(root, file)).href) as Promise<Record<string, unknown>>
  return Promise.all(
    files.map(async (page) => ({
      ...page,
      module: await load(page.file),
      server: page.serverFile ? await load(page.serverFile) : undefined,
    })),
  )
}

/**
 * The site's pages, and with `testPages` the test build's, as found on disk. The server build (src/build/server-build.ts)
 * replaces this module with one that imports the same files, so a production start lists no folder and transforms no
 * `.tsx`; a production build has no test pages and refuses `testPages` (COURIER_ERR_TEST_ROUTES_UNAVAILABLE).
 */
export async function loadPageSources(testPages: boolean): Promise<PageSource[]> {
  return importPageSources(projectRoot, listPageFiles(projectRoot, pageFolders(testPages)))
}
