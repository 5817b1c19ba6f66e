import path from 'node:path'
import { parseAst } from 'rolldown/parseAst'
import type { Plugin } from 'vite'

export interface PageDeclarationsOptions {
  /** The project root. */
  root: string
  /** The page folders, relative to the root (src/pages/page-files.ts `pageFolders`). */
  folders: readonly string[]
}

/** `export const page = ...`: a page module's declaration, as the parser gives it. */
function isPageDeclaration(node: { type: string; declaration?: unknown }): boolean {
  if (node.type !== 'ExportNamedDeclaration') return false
  const declaration = node.declaration as
    { type: string; declarations?: Array<{ id: { type: string; name?: string } }> } | null | undefined
  const declared = declaration?.type === 'VariableDeclaration' ? declaration.declarations : undefined
  return declared?.length === 1 && declared[0]!.id.type === 'Identifier' && declared[0]!.id.name === 'page'
}

/** `text` with the characters from `start` to `end` made blanks, its line breaks kept: no line or column moves. */
function blank(text: string, start: number, end: number): string {
  return text.slice(0, start) + text.slice(start, end).replace(/[^\n]/g, ' ') + text.slice(end)
}

/**
 * Takes each page module's declaration (`export const page = definePage(...)`) out of the browser's and the SSR
 * entry's code, as Next's build takes `getStaticProps` out of a page's client code: the server reads declarations
 * from the modules themselves (src/pages/page-sources.ts), the router from the manifest (page-manifest.ts) and a
 * navigation's head from the page data, so a page's chunk is its component alone, and what only the declaration
 * imported (its head's helpers) is left out by the bundler. The code keeps its lines and columns: source maps hold.
 */
export function pageDeclarations(options: PageDeclarationsOptions): Plugin {
  const folders = options.folders.map((folder) => path.join(options.root, folder) + path.sep)
  return {
    name: 'courier:page-declarations',
    enforce: 'post',
    transform(code, id) {
      const file = id.split('?')[0]!
      if (!file.endsWith('.tsx') || !folders.some((folder) => file.startsWith(folder))) return undefined
      const program = parseAst(code, { lang: 'js' })
      let stripped = code
      for (const node of program.body) {
        if (isPageDeclaration(node)) stripped = blank(stripped, node.start, node.end)
      }
      return stripped === code ? undefined : { code: stripped, map: null }
    },
  }
}
