import t from 'tap'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { clientBundle } from '../../config/client-bundle.ts'
import { loadConfig } from '../../config/env.ts'
import { assetBase } from '../../src/render/template.ts'
import { sitePages as pages } from '../helpers/page-table.ts'

/** The site's home page, whatever its id. */
const homePage = pages.find((page) => page.path === '/')!

/** The build under test: `npm test` builds first. */
const clientDir = path.join(loadConfig({}).distDir, 'client')

interface ManifestChunk {
  file: string
  isEntry?: boolean
  isDynamicEntry?: boolean
  imports?: string[]
  dynamicImports?: string[]
}

const manifest = JSON.parse(readFileSync(path.join(clientDir, '.vite', 'manifest.json'), 'utf8')) as Record<
  string,
  ManifestChunk
>

/** A chunk and every chunk it imports statically (what loads with it), as manifest keys. */
function withStaticImports(key: string, into = new Set<string>()): Set<string> {
  if (into.has(key)) return into
  into.add(key)
  for (const imported of manifest[key]?.imports ?? []) withStaticImports(imported, into)
  return into
}

/** What a browser loads for `/` before it is interactive: the document's module script (the entry) with its static
 * imports, and the home page's chunk with its own (the entry loads it before hydrating; the server preloads it). */
function firstLoadOfHome(): Map<string, number> {
  const html = readFileSync(path.join(clientDir, 'index.html'), 'utf8')
  const src = /<script type="module"[^>]*\bsrc="([^"?]+)/.exec(html)?.[1]
  const entryKey = Object.keys(manifest).find(
    (key) => manifest[key]!.isEntry && `${assetBase}${manifest[key]!.file}` === src,
  )
  if (!entryKey) throw new Error(`no manifest entry for the document's script ${src}`)
  const homeKey = Object.keys(manifest).find((key) => key.endsWith(`pages/${homePage.id}.tsx`))
  if (!homeKey) throw new Error(`no manifest entry for the home page's module (${homePage.id})`)
  const keys = withStaticImports(homeKey, withStaticImports(entryKey))
  return new Map(
    [...keys].map((key) => {
      const file = manifest[key]!.file
      return [file, gzipSync(readFileSync(path.join(clientDir, file))).byteLength]
    }),
  )
}

t.test('the first-load JS of / stays within its budget', async (t) => {
  const sizes = firstLoadOfHome()
  const total = [...sizes.values()].reduce((sum, bytes) => sum + bytes, 0)
  t.comment([...sizes].map(([file, bytes]) => `${file}: ${bytes} B gzip`).join(', '))
  t.ok(
    total <= clientBundle.firstLoadJsBudgetBytes,
    `${total} B gzip <= ${clientBundle.firstLoadJsBudgetBytes} B (config/client-bundle.ts)`,
  )
})

t.test(
  'the client router, its table of pages, the reporter and the error page are not in the first load',
  async (t) => {
    const firstLoad = new Set(firstLoadOfHome().keys())
    for (const source of ['router/start.ts', 'errors/report.ts', 'components/error-screen.tsx']) {
      const chunk = manifest[source]
      t.ok(chunk?.isDynamicEntry, `${source} is a chunk of its own, loaded on demand`)
      t.notOk(chunk && firstLoad.has(chunk.file), `${source} is not loaded with /`)
    }
    const code = [...firstLoad].map((file) => readFileSync(path.join(clientDir, file), 'utf8')).join('\n')
    // Markers of each, checked on the code itself (a match would print a whole chunk).
    t.notOk(code.includes('Route Cancelled'), 'the router is not in it')
    // The site's other pages (their components and heads) are in chunks of their own, which the router loads on the
    // way there; the home page's own comes with it.
    for (const page of pages.filter((candidate) => candidate !== homePage)) {
      const key = Object.keys(manifest).find((candidate) => candidate.endsWith(`pages/${page.id}.tsx`))
      t.ok(key && !firstLoad.has(manifest[key]!.file), `${page.id}'s chunk is not in it`)
    }
    const parametrised = pages.find((page) => page.path.includes(':'))
    t.ok(parametrised, 'the site has a page with a parameter')
    t.notOk(code.includes(parametrised!.path), "the router's table of paths is not in it")
    t.notOk(code.includes('sendBeacon'), 'the reporter is not in it')
    t.notOk(code.includes('error-title'), 'the generic error page is not in it')
  },
)
