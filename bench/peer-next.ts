/**
 * The Next.js peer (bench/peers/next): its dependencies (`npm ci`, only when node_modules is missing or older than the
 * lock), the site it serves (Courier's content written into generated/ and public/ before each build, never kept in
 * the peer), its build (`next build`, skipped when nothing it reads changed) and how to start it.
 */
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { cp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { gzipSync } from 'node:zlib'
import type { ServerPage } from '../src/pages/site.ts'
import { benchContent } from './targets.ts'
import { images } from '../config/images.ts'
import { alwaysHeaders, documentHeaders } from '../config/request-filter.ts'
import { statusTitle } from '../config/status-titles.ts'
import { revalidation } from '../config/content.ts'
import { loadConfig } from '../config/env.ts'
import { contentColumn } from '../src/common/image-sources.ts'
import { cspTemplate } from '../src/site-policy.ts'
import { errorDocumentHead } from '../src/render/error-documents.ts'
import type { FirstLoadJs, ScriptSize } from './first-load-js.ts'
import { benchRoot, peerDir, processLimits, projectRoot } from './config.ts'
import { runToEnd, type ServerSpec } from './processes.ts'

const nodeModules = path.join(peerDir, 'node_modules')
const installStamp = path.join(nodeModules, '.courier-bench-lock')
const buildDir = path.join(peerDir, '.next')
const buildStamp = path.join(buildDir, 'courier-bench-stamp')
const generatedDir = path.join(peerDir, 'generated')
const publicDir = path.join(peerDir, 'public')
const nextBin = path.join(nodeModules, 'next', 'dist', 'bin', 'next')

/** Next, quiet: no telemetry call home from a benchmark. */
const peerEnv = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
  ...env,
  NEXT_TELEMETRY_DISABLED: '1',
  // Next would rewrite the lock to add its other-platform compilers (see installPeer): the lock stays as committed.
  NEXT_IGNORE_INCORRECT_LOCKFILE: '1',
})

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex')

/** `npm ci` in the peer when node_modules is missing or was installed from another lock. */
export async function installPeer(): Promise<'installed' | 'present'> {
  const lockHash = sha256(await readFile(path.join(peerDir, 'package-lock.json')))
  if (existsSync(nextBin) && existsSync(installStamp) && (await readFile(installStamp, 'utf8')) === lockHash)
    return 'present'
  process.stderr.write('bench: installing the Next.js peer (npm ci in bench/peers/next)\n')
  const options = { cwd: peerDir, timeoutMs: processLimits.peerInstallMs }
  try {
    await runToEnd('npm', ['ci', '--no-audit', '--no-fund'], { ...options, quiet: true })
  } catch (error) {
    // A registry mirror without Next's other-platform compilers (@next/swc-darwin-*, -win32-*) writes a lock that
    // npm ci calls out of sync; npm install --no-save installs the same locked versions and leaves the lock alone.
    process.stderr.write(`bench: ${(error as Error).message}; installing from the lock with npm install --no-save\n`)
    await runToEnd('npm', ['install', '--no-save', '--no-audit', '--no-fund'], options)
  }
  await writeFile(installStamp, lockHash)
  return 'installed'
}

async function propsOf(page: ServerPage, params: Record<string, string>, deploymentId: string): Promise<unknown> {
  const result = await page.load?.({ params, query: {}, deploymentId, content: benchContent })
  if (!result || !('props' in result)) throw new Error(`the loader of ${page.id} gives no props`)
  return result.props
}

/**
 * Writes what the peer serves, from Courier's own sources: the data of the pages without content from their loaders
 * and their heads from the page table, each content page's `revalidate` from the page table and the module its content
 * pages load Courier's loaders from at run time (bench/peer-content.ts: the guides, the guide index, the FAQ and the
 * home page read CONTENT_DIR when Next runs their getStaticProps), the policy headers and CSP from config/, the
 * stylesheet, the images, the favicon and robots.txt.
 */
export async function writePeerSite(pages: readonly ServerPage[], deploymentId: string): Promise<void> {
  const page = (pattern: string) => {
    const found = pages.find((candidate) => candidate.path === pattern)
    if (!found) throw new Error(`the page table has no page at ${pattern}`)
    return found
  }
  const home = page('/')
  const guide = page('/guides/:slug')
  const guideIndex = page('/guides')
  const faq = page('/faq')
  const gallery = page('/gallery')
  const status = page('/status')
  const galleryData = await propsOf(gallery, {}, deploymentId)
  const revalidateOf = (page: ServerPage) => {
    if (page.revalidate === undefined)
      throw new Error(`the page ${page.id} declares no revalidate: the peer's copy would never change`)
    return page.revalidate
  }
  // Next links its stylesheets: its policy has the nonce in script-src only.
  const [cspHead, cspTail] = cspTemplate(undefined, { styleNonce: false }).parts as [string, string]
  const otherDirectives = cspTail.slice(cspTail.indexOf(';') + 1).trim()
  const site = {
    revalidate: {
      home: revalidateOf(home),
      guides: revalidateOf(guideIndex),
      guide: revalidateOf(guide),
      faq: revalidateOf(faq),
    },
    revalidation: {
      maxItems: revalidation.maxItems,
      maxItemLength: revalidation.maxItemLength,
      minTokenLength: revalidation.minTokenLength,
    },
    runtime: { contentModule: pathToFileURL(path.join(benchRoot, 'peer-content.ts')).href },
    gallery: { data: galleryData, head: gallery.head(galleryData, {}) },
    status: { head: status.head({}, {}) },
    notFound: { head: errorDocumentHead(404), statusCode: 404, statusTitle: statusTitle(404) },
    columnSizes: contentColumn.sizes,
    images: { deviceSizes: images.deviceSizes, imageSizes: images.imageSizes, minimumCacheTTL: images.minimumCacheTTL },
    policy: {
      cspHead,
      cspTail,
      cspWithoutNonce: `script-src 'self'; ${otherDirectives}`,
      alwaysHeaders,
      documentHeaders,
      dynamicPaths: [status.path],
    },
  }
  await mkdir(generatedDir, { recursive: true })
  await writeIfChanged(path.join(generatedDir, 'site.json'), JSON.stringify(site, null, 2) + '\n')
  await mkdir(path.join(publicDir, 'fonts'), { recursive: true })
  await cp(path.join(projectRoot, 'client', 'public'), publicDir, { recursive: true })
  // The stylesheet names its fonts by package path (Vite resolves them); Next gets them as public files.
  // Next has no build-time cut of the font (src/build/font-subset.ts): where Courier's stylesheet names its core
  // subset, the peer's names the whole Latin file, as a Next site self-hosting Inter would (one file, fetched once).
  const css = (await readFile(path.join(projectRoot, 'client', 'styles', 'global.css'), 'utf8')).replace(
    /url\(['"]?courier-font\/inter-core-wght-normal\.woff2['"]?\)/g,
    "url('@fontsource-variable/inter/files/inter-latin-wght-normal.woff2')",
  )
  const fonts = [...new Set([...css.matchAll(/url\(['"]?(@fontsource[^'")]+)['"]?\)/g)].map((match) => match[1]!))]
  for (const font of fonts) {
    await cp(path.join(projectRoot, 'node_modules', font), path.join(publicDir, 'fonts', path.basename(font)))
  }
  await writeIfChanged(
    path.join(generatedDir, 'global.css'),
    css.replace(/url\(['"]?@fontsource[^'")]*\/([^/'")]+)['"]?\)/g, "url('/fonts/$1')"),
  )
  // Courier's robots.txt (plugins/sitemap.ts) for the same SITE_URL.
  const siteUrl = loadConfig(process.env).siteUrl.replace(/\/+$/, '')
  await writeIfChanged(
    path.join(publicDir, 'robots.txt'),
    `User-agent: *\nAllow: /\nDisallow: /api/\n\nSitemap: ${siteUrl}/sitemap.xml\n`,
  )
}

/** Unchanged files keep their bytes and times, so an unchanged site does not look like a new build input. */
async function writeIfChanged(file: string, content: string): Promise<void> {
  if (existsSync(file) && (await readFile(file, 'utf8')) === content) return
  await writeFile(file, content)
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true })
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort()
}

/** A hash of everything `next build` reads: sources, config, lock, generated content, public files, peer-content.ts. */
async function buildInputsHash(): Promise<string> {
  const hash = createHash('sha256')
  const roots = ['pages', 'components', 'generated', 'public'].map((dir) => path.join(peerDir, dir))
  const single = [
    'middleware.ts',
    'site.ts',
    'content.ts',
    'next.config.mjs',
    'tsconfig.json',
    'package-lock.json',
  ].map((file) => path.join(peerDir, file))
  // Imported at run time, but the build's prerendered pages were made with it.
  single.push(path.join(benchRoot, 'peer-content.ts'))
  for (const file of [...single, ...(await Promise.all(roots.map(filesUnder))).flat()]) {
    hash
      .update(path.relative(peerDir, file))
      .update('\0')
      .update(await readFile(file))
      .update('\0')
  }
  return hash.digest('hex')
}

/** `next build` unless the last build was made from the same inputs. */
export async function buildPeer(): Promise<'built' | 'present'> {
  const inputs = await buildInputsHash()
  const buildIdFile = path.join(buildDir, 'BUILD_ID')
  if (existsSync(buildIdFile) && existsSync(buildStamp) && (await readFile(buildStamp, 'utf8')) === inputs)
    return 'present'
  process.stderr.write('bench: building the Next.js peer (next build)\n')
  await rm(buildDir, { recursive: true, force: true })
  await runToEnd(process.execPath, [nextBin, 'build'], {
    cwd: peerDir,
    env: peerEnv(process.env),
    timeoutMs: processLimits.peerBuildMs,
  })
  await writeFile(buildStamp, inputs)
  return 'built'
}

export async function peerBuildId(): Promise<string> {
  return (await readFile(path.join(buildDir, 'BUILD_ID'), 'utf8')).trim()
}

export async function peerVersion(): Promise<string> {
  return (JSON.parse(await readFile(path.join(nodeModules, 'next', 'package.json'), 'utf8')) as { version: string })
    .version
}

/** `next start` on the port startServer gives it (PORT), loopback only, production. */
export function peerServerSpec(env: NodeJS.ProcessEnv, healthPath: string): ServerSpec {
  return {
    name: 'next',
    args: [nextBin, 'start', '--hostname', '127.0.0.1'],
    cwd: peerDir,
    env: peerEnv({ ...env, NODE_ENV: 'production' }),
    healthPath,
  }
}

/**
 * First-load JS of a Next page: every `<script src>` of the served HTML a modern browser runs (the `nomodule`
 * polyfills are skipped by every browser that supports modules), read from .next/static and gzipped like Courier's.
 */
export async function measurePeerFirstLoadJs(pagePath: string, html: string): Promise<FirstLoadJs> {
  const scripts: ScriptSize[] = []
  for (const tag of html.match(/<script\b[^>]*>/g) ?? []) {
    const src = /\bsrc="([^"]+)"/.exec(tag)?.[1]
    if (!src || /\bnomodule\b/i.test(tag)) continue
    const pathname = new URL(src, 'http://peer.invalid').pathname
    if (!pathname.startsWith('/_next/static/'))
      throw new Error(`the peer's page loads a script from outside its build: ${src}`)
    const file = pathname.slice('/_next/'.length)
    const content = await readFile(path.join(buildDir, decodeURIComponent(file)))
    // Next compresses per request with gzip (its `compress` option, on by default): that is what it sends.
    const gzipBytes = gzipSync(content).byteLength
    scripts.push({ file, role: 'html', bytes: content.byteLength, gzipBytes, sentBytes: gzipBytes })
  }
  if (!scripts.length) throw new Error(`the peer's ${pagePath} loads no script`)
  return {
    page: pagePath,
    scripts,
    totalBytes: scripts.reduce((sum, script) => sum + script.bytes, 0),
    totalGzipBytes: scripts.reduce((sum, script) => sum + script.gzipBytes, 0),
    totalSentBytes: scripts.reduce((sum, script) => sum + script.sentBytes, 0),
  }
}
