/**
 * The request mix of the load and memory runs, and how each response is known to be the right one. Expectations
 * come from the page table, the loaders and the build on disk, never from a response under load: an error page or
 * a cut-off stream under load must count as a mismatch. The pages are the test build's (test/site/pages/, served with
 * COURIER_TEST_ROUTES) and the home page, whatever other pages the site has.
 */
import { stat } from 'node:fs/promises'
import path from 'node:path'
import type { RouteParams } from '../../src/common/page-types.ts'
import { images } from '../../config/images.ts'
import { statusTitle } from '../../config/status-titles.ts'
import { loadSite, type ServerPage } from '../../src/pages/site.ts'
import { siteContent } from '../helpers/content.ts'
import { entryLoaderUrls, escapeHtml } from '../../src/render/template.ts'
import { projectRoot } from './server-process.ts'
import { defaultDistDir } from '../../config/env.ts'
import { publicImagePath, testGuideRoute, testGuidesPath } from '../helpers/site-pages.ts'

export interface Target {
  name: string
  path: string
  headers?: Record<string, string>
  status: number
  /** Whether a response with the expected status is the right one (body and headers). */
  check(body: string, headers: Record<string, string>): boolean
}

/** The end of a built document: present only when the stream ran to its end. */
const documentEnd = '</html>'

const { pages } = await loadSite(true)

/** The test build's partly prerendered page, and the token its request-time half shows. */
const partialPath = '/__test/partial'
const liveToken = 'mix-request'

function pageAt(pattern: string): ServerPage {
  const page = pages.find((candidate) => candidate.path === pattern)
  if (!page) throw new Error(`the page table has no page at ${pattern}`)
  return page
}

async function titleOf(page: ServerPage, params: RouteParams, deploymentId: string): Promise<string> {
  const load = page.load
  const result = load ? await load({ params, query: {}, deploymentId, content: siteContent }) : { props: {} }
  if (!('props' in result)) throw new Error(`the loader of ${page.id} gives no page for ${JSON.stringify(params)}`)
  return `<title>${escapeHtml(page.head(result.props, params).title)}</title>`
}

function documentWith(marker: string) {
  return (body: string) => body.includes(marker) && body.trimEnd().endsWith(documentEnd)
}

function jsonWith(predicate: (value: Record<string, unknown>) => boolean) {
  return (body: string) => {
    try {
      return predicate(JSON.parse(body) as Record<string, unknown>)
    } catch {
      return false
    }
  }
}

export interface MixSources {
  /** From the running server's `/`: `<html data-dpl-id>`. */
  deploymentId: string
  /** A built chunk `/` links to, e.g. `/_next/static/chunks/home-x.js?dpl=...`. */
  assetPath: string
  /** Bytes of that script in the build the server serves. */
  assetBytes: number
  /** Bytes of the optimized image, from the request that filled the cache. */
  imageBytes: number
  imagePath: string
  imageAccept: string
}

/**
 * Reads what the mix needs from a freshly started server (and fills the image cache, so the mix gets hits).
 * `distDir`: the build that server serves.
 */
export async function readMixSources(
  origin: string,
  distDir = path.join(projectRoot, defaultDistDir(true)),
): Promise<MixSources> {
  const home = await (await fetch(`${origin}/`)).text()
  const deploymentId = /data-dpl-id="([^"]+)"/.exec(home)?.[1]
  if (!deploymentId) throw new Error('`/` names no deployment id')
  // The smallest script `/` starts: the mix is about the server, not about copying a large file.
  const { entries, preloads } = entryLoaderUrls(home)
  const sized = await Promise.all(
    [...entries, ...preloads].map(async (url) => ({
      url,
      bytes: (await stat(path.join(distDir, 'client', 'chunks', path.basename(new URL(url, origin).pathname)))).size,
    })),
  )
  const asset = sized.sort((a, b) => a.bytes - b.bytes)[0]
  if (!asset) throw new Error('`/` links no script chunk')
  const imageAccept = 'image/avif,image/webp,*/*'
  const imagePath = `/_next/image?url=${encodeURIComponent(publicImagePath())}&w=${images.deviceSizes[0]}&q=75`
  const miss = await fetch(`${origin}${imagePath}`, { headers: { accept: imageAccept } })
  const imageBytes = (await miss.arrayBuffer()).byteLength
  if (miss.status !== 200 || imageBytes === 0) throw new Error(`the image to load did not optimize (${miss.status})`)
  return { deploymentId, assetPath: asset.url, assetBytes: asset.bytes, imageBytes, imagePath, imageAccept }
}

/** The mix: pages, page data, an image cache hit, the API, 404s, a static asset and a public file. */
export async function buildMix(sources: MixSources): Promise<Target[]> {
  const { deploymentId } = sources
  const guide = pageAt(testGuideRoute)
  const slug = (await guide.staticParams?.({ content: siteContent }))?.[0]?.slug
  if (!slug) throw new Error('the guide loader lists no slugs')
  const guideCount = (await siteContent.guideSummaries()).length
  const dataHeaders = { 'x-deployment-id': deploymentId }
  const notFoundTitle = `<title>${escapeHtml(`404: ${statusTitle(404)}`)}</title>`
  const { assetBytes } = sources
  return [
    { name: 'page /', path: '/', status: 200, check: documentWith(await titleOf(pageAt('/'), {}, deploymentId)) },
    {
      name: `page ${testGuideRoute}`,
      path: guide.path.replace(':slug', encodeURIComponent(slug)),
      status: 200,
      check: documentWith(await titleOf(guide, { slug }, deploymentId)),
    },
    {
      // Its kept shell and its request-time hole, filled before the document ends.
      name: `page ${partialPath} (dynamic)`,
      path: `${partialPath}?token=${liveToken}`,
      status: 200,
      check: (body) =>
        documentWith('id="partial-kept"')(body) && body.includes('id="partial-live"') && body.includes(liveToken),
    },
    {
      name: `data ${testGuidesPath}.json (static)`,
      path: `/_next/data/${deploymentId}${testGuidesPath}.json`,
      headers: dataHeaders,
      status: 200,
      check: (body, headers) =>
        headers['x-deployment-id'] === deploymentId &&
        jsonWith((value) => (value.pageProps as { guides?: unknown[] })?.guides?.length === guideCount)(body),
    },
    {
      // Partly prerendered: its kept half (made once per version) and its request-time half (the request's token).
      name: `data ${partialPath}.json (partly prerendered)`,
      path: `/_next/data/${deploymentId}${partialPath}.json?token=${liveToken}`,
      headers: dataHeaders,
      status: 200,
      check: jsonWith((value) => {
        const props = value.pageProps as
          { kept?: { keptToken?: string }; live?: { value?: { requestToken?: string } } } | undefined
        return typeof props?.kept?.keptToken === 'string' && props.live?.value?.requestToken === liveToken
      }),
    },
    {
      // HIT, or STALE once the entry outlives its max-age mid-run (served from the cache, refreshed behind it).
      name: 'image, cache hit',
      path: sources.imagePath,
      headers: { accept: sources.imageAccept },
      status: 200,
      check: (_body, headers) =>
        /^(HIT|STALE)$/.test(headers['x-image-cache'] ?? '') &&
        Number(headers['content-length']) === sources.imageBytes,
    },
    {
      name: 'api /api/image-widths',
      path: '/api/image-widths',
      status: 200,
      check: jsonWith((value) => JSON.stringify(value.deviceSizes) === JSON.stringify(images.deviceSizes)),
    },
    { name: 'api /api/health', path: '/api/health', status: 200, check: jsonWith((value) => value.status === 'ok') },
    { name: '404 page', path: '/no-such-page', status: 404, check: documentWith(notFoundTitle) },
    {
      name: '404 api',
      path: '/api/no-such-endpoint',
      status: 404,
      check: jsonWith((value) => value.code === 'COURIER_ERR_NOT_FOUND'),
    },
    {
      name: 'static asset',
      path: sources.assetPath,
      status: 200,
      check: (body, headers) =>
        Number(headers['content-length']) === assetBytes &&
        /immutable/.test(headers['cache-control'] ?? '') &&
        body.length > 0,
    },
    { name: '/robots.txt', path: '/robots.txt', status: 200, check: (body) => body.includes('User-agent: *') },
  ]
}
