import { readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { clientBundle } from '../../config/client-bundle.ts'
import { assetBase } from './template.ts'

/**
 * The text of a built stylesheet the template links (`/_next/static/...css?dpl=...`), for the document to carry it
 * inline (docs/rendering.md "Loading order"): read once, when the template is compiled. Undefined for anything else,
 * and for a stylesheet above `clientBundle.inlineStylesheetMaxBytes`, which keeps its link and its own cache entry.
 */
export function builtStylesheetReader(clientDir: string): (href: string) => string | undefined {
  const root = path.resolve(clientDir) + path.sep
  return function readBuiltStylesheet(href) {
    const { pathname } = new URL(href, 'http://courier.invalid')
    if (!pathname.startsWith(assetBase) || !pathname.endsWith('.css')) return undefined
    const file = path.resolve(root, decodeURIComponent(pathname.slice(assetBase.length)))
    if (!file.startsWith(root)) return undefined
    try {
      if (statSync(file).size > clientBundle.inlineStylesheetMaxBytes) return undefined
      return readFileSync(file, 'utf8')
    } catch {
      return undefined
    }
  }
}
