/**
 * Compression dictionaries measured (docs/compression.md "Dictionaries"): the JavaScript bytes on the wire for a
 * Chromium visitor after a deploy that changed one page, first visit against returning visit.
 *
 * Deployment A is the production build (dist/); deployment B a copy of the project in which one page says one more
 * line, built beside it, with the deltas of its chunks against A's (src/build/dictionary-deltas.ts). Both servers run in
 * this process behind one loopback origin (the browser suite's proxy, pointed at A, then at B). For `/` and that page:
 * - first visit: a fresh browser context loads the page from B;
 * - returning visit: a fresh context loads it from A (Chromium keeps A's chunks as dictionaries), then from B: each
 *   script in `dcb` or `dcz`, the smaller (`dcb` for each here);
 * - returning visit, `dcz` only: the same, B's chunk requests reaching the server with `dcb` taken out of
 *   Accept-Encoding (a client that takes only `dcz`);
 * - returning visit, no delta: the same, with both taken out (what any other engine gets).
 * Each visit waits for hydration and for the router's prefetches to end, then reads the page's Resource Timing:
 * `encodedBodySize` (the body as sent, coded) and `decodedBodySize` of every script of `/_next/static/chunks/`.
 * The bytes do not vary from run to run: one run, no rounds.
 *
 * Run by `npm run bench:dictionaries` (NODE_ENV=production, on the production build: `npm run build` first). Prints
 * the tables.
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import { chromium, type BrowserContext } from 'playwright-core'
import { dictionaryFilesIn, writeDeltas } from '../src/build/dictionary-deltas.ts'
import { buildWithChangedPage, changedPage } from '../test/helpers/changed-build.ts'
import { chromiumArgs, chromiumPath, startServer } from '../test/e2e/harness.ts'
import { startProxy } from '../test/e2e/engines/proxy.ts'
import { distDir } from './config.ts'

/** After hydration, the router's prefetches of the links in view: what a visit downloads before the visitor acts. */
const settleMs = 2_000
/** The goal: a returning visitor downloads at most this share of a first visit's JavaScript. */
const goalShare = 0.15
const pages = ['/', changedPage.path]

interface Script {
  name: string
  encodedBodySize: number
  decodedBodySize: number
}

function stderr(line: string): void {
  process.stderr.write(`bench:dictionaries: ${line}\n`)
}

if (!existsSync(path.join(distDir, 'deployment.json'))) {
  stderr(`no production build in ${distDir}: run \`npm run build\` first`)
  process.exit(1)
}

stderr(`building deployment B (${changedPage.path} changed)`)
const changed = await buildWithChangedPage('bench-deployment-b')
const cleanups: Array<() => Promise<unknown>> = [changed.remove]
try {
  const chunksB = path.join(changed.distDir, 'client', 'chunks')
  const deltas = await writeDeltas(chunksB, await dictionaryFilesIn(path.join(distDir, 'client', 'chunks')))
  stderr(`${deltas.written.length} deltas written (${deltas.notSmaller} no smaller than the chunk's coding)`)
  const serverA = await startServer({})
  cleanups.unshift(() => serverA.close())
  const serverB = await startServer({ DIST_DIR: changed.distDir }, { rootDir: changed.sourceDir })
  cleanups.unshift(() => serverB.close())
  const proxy = await startProxy(serverA.origin)
  cleanups.unshift(() => proxy.close())
  const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumArgs })
  cleanups.unshift(() => browser.close())
  stderr(`${browser.version()}`)

  /** One load of `pagePath` in a new tab of `context`: the scripts it downloaded. */
  async function visit(context: BrowserContext, pagePath: string): Promise<Script[]> {
    const page = await context.newPage()
    await page.goto(`${proxy.origin}${pagePath}`, { waitUntil: 'load' })
    await page.waitForSelector('html[data-hydrated="true"]', { state: 'attached', timeout: 15_000 })
    await page.waitForTimeout(settleMs)
    const scripts = await page.evaluate(() =>
      (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
        .filter((entry) => /\/_next\/static\/chunks\/[^/?]+\.js(\?|$)/.test(entry.name))
        .map((entry) => ({
          name: new URL(entry.name).pathname.split('/').pop() ?? '',
          encodedBodySize: entry.encodedBodySize,
          decodedBodySize: entry.decodedBodySize,
        })),
    )
    await page.close()
    return scripts
  }

  /** Accept-Encoding on B's chunk requests in place of Chromium's own (`gzip, deflate, br, zstd, dcb, dcz`). */
  async function returning(pagePath: string, acceptEncoding?: string): Promise<Script[]> {
    const context = await browser.newContext()
    try {
      proxy.retarget(serverA.origin)
      await visit(context, pagePath)
      // The browser stores a dictionary once its answer is complete.
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      proxy.retarget(serverB.origin)
      if (acceptEncoding)
        proxy.route({
          matches: (pathAndQuery) => pathAndQuery.startsWith('/_next/static/chunks/'),
          answer: () => ({ acceptEncoding }),
        })
      return await visit(context, `${pagePath}${pagePath.includes('?') ? '&' : '?'}visit=2`)
    } finally {
      await context.close()
      await proxy.reset()
    }
  }

  async function first(pagePath: string): Promise<Script[]> {
    const context = await browser.newContext()
    try {
      proxy.retarget(serverB.origin)
      return await visit(context, pagePath)
    } finally {
      await context.close()
      await proxy.reset()
    }
  }

  const sum = (scripts: Script[], field: 'encodedBodySize' | 'decodedBodySize') =>
    scripts.reduce((total, one) => total + one[field], 0)
  const rows: string[][] = []
  let goalMet = true
  for (const pagePath of pages) {
    const firstVisit = await first(pagePath)
    const withDeltas = await returning(pagePath)
    const dczOnly = await returning(pagePath, 'gzip, deflate, br, zstd, dcz')
    const withoutDeltas = await returning(pagePath, 'gzip, deflate, br, zstd')
    const firstBytes = sum(firstVisit, 'encodedBodySize')
    const share = sum(withDeltas, 'encodedBodySize') / firstBytes
    if (share > goalShare) goalMet = false
    process.stdout.write(`\n${pagePath}: the scripts of deployment B, bytes on the wire (decoded)\n`)
    const perScript = firstVisit.map((script) => {
      const delta = withDeltas.find((one) => one.name === script.name)
      const dcz = dczOnly.find((one) => one.name === script.name)
      const plain = withoutDeltas.find((one) => one.name === script.name)
      return [
        script.name,
        `${script.encodedBodySize} (${script.decodedBodySize})`,
        `${plain?.encodedBodySize ?? '-'}`,
        `${dcz?.encodedBodySize ?? '-'}`,
        `${delta?.encodedBodySize ?? '-'} (${delta?.decodedBodySize ?? '-'})`,
      ]
    })
    printTable(
      ['script', 'first visit', 'returning, no delta', 'returning, dcz only', 'returning, dcb or dcz'],
      perScript,
    )
    rows.push([
      pagePath,
      `${firstVisit.length}`,
      `${firstBytes}`,
      `${sum(withoutDeltas, 'encodedBodySize')}`,
      `${sum(dczOnly, 'encodedBodySize')}`,
      `${sum(withDeltas, 'encodedBodySize')}`,
      `${(share * 100).toFixed(1)} %`,
      `${sum(withDeltas, 'decodedBodySize')}`,
    ])
  }
  process.stdout.write(
    `\nJavaScript on the wire after a deploy that changed ${changedPage.path} (${browser.version()})\n`,
  )
  printTable(
    [
      'page',
      'scripts',
      'first visit B',
      'returning, no delta',
      'returning, dcz only',
      'returning, dcb or dcz',
      'delta / first',
      'decoded',
    ],
    rows,
  )
  process.stdout.write(
    `goal: a returning visitor downloads at most ${goalShare * 100} % of a first visit's JavaScript: ${goalMet ? 'met' : 'NOT met'}\n`,
  )
  process.exitCode = goalMet ? 0 : 1
} finally {
  for (const cleanup of cleanups) await cleanup().catch((error: unknown) => stderr(`cleanup failed: ${String(error)}`))
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)))
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join(' | ')} |\n`
  process.stdout.write(line(header))
  process.stdout.write(
    `|${widths.map((width, column) => (column === 0 ? `:${'-'.repeat(width + 1)}` : `${'-'.repeat(width + 1)}:`)).join('|')}|\n`,
  )
  for (const row of rows) process.stdout.write(line(row))
}
