import { readdirSync } from 'node:fs'
import path from 'node:path'
import { errors } from '../errors.ts'

/** A page's files, relative to the project root: its module and, if it has one, its server half. */
export interface PageFile {
  /** The page's id: its module's file name. */
  id: string
  /** `site/pages/<id>.tsx`. */
  file: string
  /** `site/pages/<id>.server.ts`, or none: a page without data. */
  serverFile: string | undefined
}

/** The site's pages: a folder of the site's own (docs/your-site.md). */
export const sitePageFolder = 'site/pages'

/** The test build's pages (served under `/__test/` with COURIER_TEST_ROUTES only). */
export const testPageFolder = 'test/site/pages'

/** The folders pages are read from: the site's, and the test build's too when it is asked for. */
export function pageFolders(testPages: boolean): string[] {
  return testPages ? [sitePageFolder, testPageFolder] : [sitePageFolder]
}

/** A page id: a file name a URL-safe chunk name can carry, lowercase, words joined by `-`. */
const pageIdPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
const moduleSuffix = '.tsx'
const serverSuffix = '.server.ts'

/**
 * The pages of `folders` (under `root`), by convention: each `<id>.tsx` is a page, each `<id>.server.ts` the server
 * half of the page beside it; nothing else may be there (a helper module belongs beside the folder, not in it), so a
 * misspelt file fails the build instead of being silently no page. In file-name order, folder by folder.
 */
export function listPageFiles(root: string, folders: readonly string[]): PageFile[] {
  const pages = new Map<string, PageFile>()
  for (const folder of folders) {
    const names = readdirSync(path.join(root, folder)).sort()
    const servers = new Set(names.filter((name) => name.endsWith(serverSuffix)))
    for (const name of names) {
      const file = `${folder}/${name}`
      if (name.endsWith(serverSuffix)) {
        if (!names.includes(name.slice(0, -serverSuffix.length) + moduleSuffix)) {
          throw new errors.PageModuleInvalid(file, `a server half without its page module (${moduleSuffix} beside it)`)
        }
        continue
      }
      if (!name.endsWith(moduleSuffix)) {
        throw new errors.PageModuleInvalid(
          file,
          `not a page: a page folder holds <id>${moduleSuffix} and <id>${serverSuffix} only`,
        )
      }
      const id = name.slice(0, -moduleSuffix.length)
      if (!pageIdPattern.test(id)) {
        throw new errors.PageModuleInvalid(
          file,
          'a page id (its file name) is lowercase letters and digits joined by -',
        )
      }
      const other = pages.get(id)
      if (other) throw new errors.PageModuleInvalid(file, `page id ${id} is taken by ${other.file}`)
      const serverName = id + serverSuffix
      pages.set(id, { id, file, serverFile: servers.has(serverName) ? `${folder}/${serverName}` : undefined })
    }
  }
  return [...pages.values()]
}
