import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { errors } from '../errors.ts'
import { assetBase } from './template.ts'

/** One entry of Vite's build manifest (dist/client/.vite/manifest.json). */
interface ManifestChunk {
  file: string
  isEntry?: boolean
  imports?: string[]
  css?: string[]
}

/** The tags that start a page's code loading with the document, instead of after the entry script has run. */
export interface PagePreloads {
  modules: readonly string[]
  styles: readonly string[]
}

const none: PagePreloads = Object.freeze({ modules: [], styles: [] })

/**
 * Reads, once at start-up, which chunks each page needs beyond the entry (a page's module is `pages/<id>.tsx`, in
 * client/ or, in a test build, test/site/), so the document can `modulepreload` them. A page without a chunk stops
 * start-up: the build was made from other sources (`COURIER_ERR_BUILD_INCOMPLETE`). URLs carry `?dpl=<id>` like every
 * other asset reference, so the preload and the later import are one fetch.
 */
export async function readPagePreloads(
  clientDir: string,
  pageIds: readonly string[],
  deploymentId: string,
): Promise<(pageId: string) => PagePreloads> {
  const manifest = JSON.parse(await readFile(path.join(clientDir, '.vite', 'manifest.json'), 'utf8')) as Record<
    string,
    ManifestChunk
  >
  const url = (file: string) => `${assetBase}${file}?dpl=${encodeURIComponent(deploymentId)}`
  const byPage = new Map<string, PagePreloads>()
  const pageModuleKeys = new Map<string, string>()
  for (const key of Object.keys(manifest)) {
    const module = /(?:^|\/)pages\/([\w-]+)\.tsx$/.exec(key)
    if (module) pageModuleKeys.set(module[1]!, key)
  }
  for (const id of pageIds) {
    const root = manifest[pageModuleKeys.get(id) ?? '']
    if (!root) {
      const how = 'rebuild it (`npm run build`, or `npm run build:test` for the test pages)'
      throw new errors.BuildIncomplete(clientDir, id, how)
    }
    const modules = new Set<string>()
    const styles = new Set<string>()
    const visit = (chunk: ManifestChunk) => {
      if (chunk.isEntry || modules.has(chunk.file)) return
      modules.add(chunk.file)
      for (const css of chunk.css ?? []) styles.add(css)
      for (const key of chunk.imports ?? []) {
        const imported = manifest[key]
        if (imported) visit(imported)
      }
    }
    visit(root)
    byPage.set(id, Object.freeze({ modules: [...modules].map(url), styles: [...styles].map(url) }))
  }
  return (pageId) => byPage.get(pageId) ?? none
}
