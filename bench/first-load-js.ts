/**
 * First-load JS of a page: the gzip size of every script a browser loads before the page is interactive. That is
 * the module script(s) and modulepreloads the served HTML names, the chunks they import statically (Vite's manifest,
 * `imports`, transitively), and the page's own chunk, which the client entry loads before hydrating
 * (client/entry-client.tsx) together with its static imports.
 */
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { assetBase, entryLoaderUrls } from '../src/render/template.ts'
import { clientDir, manifestFile } from './build-output.ts'

interface ManifestChunk {
  file: string
  name?: string
  src?: string
  isEntry?: boolean
  isDynamicEntry?: boolean
  imports?: string[]
}

type Manifest = Record<string, ManifestChunk>

export interface ScriptSize {
  /** Path under dist/client. */
  file: string
  /** Why the page loads it. */
  role: 'html' | 'static-import' | 'page-chunk'
  bytes: number
  gzipBytes: number
  /** What the server sends a browser that accepts brotli: the build's `.br` file where there is one (Courier). */
  sentBytes: number
}

export interface FirstLoadJs {
  page: string
  scripts: ScriptSize[]
  totalBytes: number
  totalGzipBytes: number
  totalSentBytes: number
}

/**
 * The script URLs the HTML makes the browser fetch: module scripts and module preloads, named in the head or started
 * by the entry loader after the first paint (src/render/entry-loader.ts).
 */
function scriptUrls(html: string): string[] {
  const { entries, preloads } = entryLoaderUrls(html)
  const urls: string[] = [...entries, ...preloads]
  for (const tag of html.match(/<script\b[^>]*>/g) ?? []) {
    const src = /\bsrc="([^"]+)"/.exec(tag)?.[1]
    if (src && /\btype="module"/.test(tag)) urls.push(src)
  }
  for (const tag of html.match(/<link\b[^>]*>/g) ?? []) {
    const href = /\bhref="([^"]+)"/.exec(tag)?.[1]
    if (href && /\brel="modulepreload"/.test(tag)) urls.push(href)
  }
  return urls
}

/** `/_next/static/chunks/index-x.js?dpl=...` → `chunks/index-x.js` (a file under dist/client). */
function builtFile(url: string): string {
  const pathname = new URL(url, 'http://courier.invalid').pathname
  if (!pathname.startsWith(assetBase)) throw new Error(`the page loads a script from outside the build: ${url}`)
  return pathname.slice(assetBase.length)
}

/**
 * @param pagePath the page's URL path, for the report
 * @param html the page as served (its module script names the entry as the browser sees it)
 * @param pageId the page's id: its module's file name, the name Vite gives the page's chunk (site/pages/<id>.tsx)
 */
export async function measureFirstLoadJs(pagePath: string, html: string, pageId: string): Promise<FirstLoadJs> {
  const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as Manifest
  const keyOfFile = new Map(Object.entries(manifest).map(([key, chunk]) => [chunk.file, key]))
  const roles = new Map<string, ScriptSize['role']>()

  function addWithImports(key: string, role: ScriptSize['role']): void {
    const chunk = manifest[key]
    if (!chunk) throw new Error(`the manifest has no chunk ${key}`)
    if (roles.has(chunk.file)) return
    roles.set(chunk.file, role)
    for (const imported of chunk.imports ?? []) addWithImports(imported, 'static-import')
  }

  const fromHtml = scriptUrls(html).map(builtFile)
  if (fromHtml.length === 0) throw new Error(`${pagePath} loads no module script`)
  for (const file of fromHtml) {
    const key = keyOfFile.get(file)
    if (key) addWithImports(key, 'html')
    else roles.set(file, 'html') // not a manifest chunk: counted alone
  }
  const pageChunks = Object.entries(manifest).filter(([, chunk]) => chunk.isDynamicEntry && chunk.name === pageId)
  if (pageChunks.length !== 1) {
    throw new Error(`expected one chunk named ${pageId} in the manifest, found ${pageChunks.length}`)
  }
  addWithImports(pageChunks[0]![0], 'page-chunk')

  const scripts: ScriptSize[] = []
  for (const [file, role] of roles) {
    const content = await readFile(path.join(clientDir, file))
    const brotli = await readFile(path.join(clientDir, `${file}.br`)).catch(() => undefined)
    // Default level, as the brief fixes: what a typical server-side gzip sends.
    const gzipBytes = gzipSync(content).byteLength
    scripts.push({
      file,
      role,
      bytes: content.byteLength,
      gzipBytes,
      sentBytes: brotli?.byteLength ?? content.byteLength,
    })
  }
  return {
    page: pagePath,
    scripts,
    totalBytes: scripts.reduce((sum, script) => sum + script.bytes, 0),
    totalGzipBytes: scripts.reduce((sum, script) => sum + script.gzipBytes, 0),
    totalSentBytes: scripts.reduce((sum, script) => sum + script.sentBytes, 0),
  }
}
