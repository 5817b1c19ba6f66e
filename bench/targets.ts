/**
 * What the bench loads and how it knows a response is the right one. Expectations come from the page table of the
 * build under test (its SSR entry) and the server's loaders, never from a response: a run that gets error pages must
 * show errors, not throughput. Courier and the Next.js peer get the same targets, judged by the same markers.
 */
import type { PageDefinition, RouteParams } from '../src/common/page-types.ts'
import { statusTitle } from '../config/status-titles.ts'
import type { ServerPage } from '../src/pages/site.ts'
import { loadConfig } from '../config/env.ts'
import { ContentSource } from '../src/content/content-source.ts'
import { escapeHtml } from '../src/render/template.ts'

/**
 * `bare`: Fastify + renderToPipeableStream of /status and @fastify/static (bench/bare-server.ts), the floors.
 * `baseline`: Courier's same build on the older Node that BENCH_BASELINE_NODE names (bench/older-node-entry.mjs).
 */
export type ServerName = 'courier' | 'next' | 'bare' | 'baseline'

/** What a target measures: the same kind on two servers is one comparison. */
export type BaseKind =
  'static-page' | 'guide-page' | 'dynamic-page' | 'static-data' | 'dynamic-data' | 'not-found' | 'image-hit' | 'robots'

/** `<kind>+compressed`: the same target asked with `Accept-Encoding: br, gzip`, as every browser asks. */
export type TargetKind = BaseKind | `${BaseKind}+compressed`

/** What browsers send (the order of Chromium's header less the codings neither server speaks). */
export const browserAcceptEncoding = 'br, gzip'

/** The kinds that also run compressed: documents and page data (robots.txt and images stay identity). */
const compressedKinds = new Set<TargetKind>([
  'static-page',
  'guide-page',
  'dynamic-page',
  'static-data',
  'dynamic-data',
  'not-found',
])

/**
 * The compressed twin of a target: the same path asked with Accept-Encoding. A compressed body cannot be read as
 * text under load, so such a response is judged by its status and its coding; its decompressed body is judged once
 * before the run (the preflight decompresses, like a browser).
 */
export function compressedTwin(target: Target): Target | undefined {
  if (!compressedKinds.has(target.kind)) return undefined
  return {
    ...target,
    name: `${target.name} (br, gzip)`,
    kind: `${target.kind}+compressed` as TargetKind,
    headers: { ...target.headers, 'accept-encoding': browserAcceptEncoding },
  }
}

/** `html`: a whole document (ends with </html>); `text`: markers only; `bytes`: exactly expectedBytes long. */
export type BodyKind = 'html' | 'text' | 'bytes'

export interface Target {
  /** Shown in the table and the JSON, e.g. `Courier /status`. */
  name: string
  server: ServerName
  kind: TargetKind
  path: string
  expectedStatus: number
  body: BodyKind
  /** Every good response body holds each of these. */
  markers: string[]
  /** Request headers, as the server's own client sends them (page data, images). */
  headers?: Record<string, string>
  /** `bytes` targets: a good response has exactly this Content-Length. */
  expectedBytes?: number
}

/** The end of the built document: present only when the stream ran to its end (no aborted render). */
export const documentEnd = '</html>'

export type Verdict = 'ok' | 'unexpected-status' | 'body-mismatch'

/** Whether `target` asked for the content coding an answer came in: only such a target may get one. */
export function codingAsked(target: Target, coding: string): boolean {
  return (target.headers?.['accept-encoding'] ?? '').split(',').some((name) => name.trim() === coding)
}

export function judge(target: Target, status: number, body: string, headers: Record<string, string> = {}): Verdict {
  if (status !== target.expectedStatus) return 'unexpected-status'
  const coding = headers['content-encoding']
  if (coding !== undefined) {
    return codingAsked(target, coding) && body.length > 0 ? 'ok' : 'body-mismatch'
  }
  if (target.body === 'bytes') {
    return Number(headers['content-length']) === target.expectedBytes ? 'ok' : 'body-mismatch'
  }
  if (target.body === 'html' && !body.trimEnd().endsWith(documentEnd)) return 'body-mismatch'
  return target.markers.every((marker) => body.includes(marker)) ? 'ok' : 'body-mismatch'
}

function pageAt(pages: readonly ServerPage[], pattern: string): ServerPage {
  const page = pages.find((candidate) => candidate.path === pattern)
  if (!page) throw new Error(`the build's page table has no page at ${pattern}`)
  return page
}

/**
 * The page's title as it ends the `<title>` element, computed from the data its loader gives for these params. Both
 * servers carry it: Courier writes `<title>…</title>`, Next `<title data-next-head="">…</title>`.
 */
/** The content both servers serve: CONTENT_DIR's default, read as Courier's loaders read it. */
export const benchContent = new ContentSource(loadConfig({}).contentDir)

async function titleMarker(page: ServerPage, params: RouteParams, deploymentId: string): Promise<string> {
  const load = page.load
  const result = load ? await load({ params, query: {}, deploymentId, content: benchContent }) : { props: {} }
  if (!('props' in result)) throw new Error(`the loader of ${page.id} gives no page for ${JSON.stringify(params)}`)
  const head = page.head(result.props, params)
  return titleEnd(head.title)
}

export const titleEnd = (title: string) => `>${escapeHtml(title)}</title>`

/** How one server names its deployment, and what its client sends with a page-data request. */
export interface ServerIdentity<Server extends 'courier' | 'next' | 'baseline' = 'courier' | 'next' | 'baseline'> {
  server: Server
  label: string
  /** Courier's deployment id, Next's build id: in the page-data URL and on the status page. */
  deploymentId: string
  dataHeaders: Record<string, string>
}

export const courierIdentity = (deploymentId: string): ServerIdentity<'courier'> => ({
  server: 'courier',
  label: 'Courier',
  deploymentId,
  dataHeaders: { 'x-deployment-id': deploymentId },
})

/** Courier's build on another Node: its targets are Courier's, named after that Node (`Courier on v20.20.2`). */
export const baselineIdentity = (deploymentId: string, nodeVersion: string): ServerIdentity<'baseline'> => ({
  ...courierIdentity(deploymentId),
  server: 'baseline',
  label: `Courier on ${nodeVersion}`,
})

/** Next's client sends x-nextjs-data: 1 with every data fetch (next/dist/shared/lib/router/router.js). */
export const nextIdentity = (buildId: string): ServerIdentity<'next'> => ({
  server: 'next',
  label: 'Next',
  deploymentId: buildId,
  dataHeaders: { 'x-nextjs-data': '1' },
})

/** The first guide: the guide page the bench loads. */
export async function firstGuidePath(pages: readonly ServerPage[]): Promise<{ path: string; params: RouteParams }> {
  const guide = pageAt(pages, '/guides/:slug')
  const firstGuide = (await guide.staticParams?.({ content: benchContent }))?.[0]
  if (!firstGuide?.slug) throw new Error('there is no guide to load: the guide loader lists no slugs')
  return { path: `/guides/${encodeURIComponent(firstGuide.slug)}`, params: firstGuide }
}

/** The page targets of one server (the image target is added once its bytes are known, bench/images.ts). */
export async function pageTargets(pages: readonly ServerPage[], who: ServerIdentity): Promise<Target[]> {
  const home = pageAt(pages, '/')
  const guide = pageAt(pages, '/guides/:slug')
  const status = pageAt(pages, '/status')
  const { path: guidePath, params } = await firstGuidePath(pages)
  const homeMarkers = [await titleMarker(home, {}, who.deploymentId)]
  const statusMarkers = [await titleMarker(status, {}, who.deploymentId), `>${who.deploymentId}</dd>`]
  const firstGuideTitle = (guide.staticParams && (await titleMarker(guide, params, who.deploymentId))) || ''
  const homeData = (await home.load!({
    params: {},
    query: {},
    deploymentId: who.deploymentId,
    content: benchContent,
  })) as {
    // The home page's first page of the list of guides (site/pages/home.server.ts).
    props: { guides: { guides: Array<{ title: string }> } }
  }
  const dataPrefix = `/_next/data/${who.deploymentId}`
  const html = { expectedStatus: 200, body: 'html' as const, server: who.server }
  return [
    { ...html, name: `${who.label} /`, kind: 'static-page', path: '/', markers: homeMarkers },
    { ...html, name: `${who.label} ${guidePath}`, kind: 'guide-page', path: guidePath, markers: [firstGuideTitle] },
    { ...html, name: `${who.label} /status`, kind: 'dynamic-page', path: '/status', markers: statusMarkers },
    {
      name: `${who.label} data of /`,
      server: who.server,
      kind: 'static-data',
      path: `${dataPrefix}/index.json`,
      expectedStatus: 200,
      body: 'text',
      markers: [JSON.stringify(homeData.props.guides.guides[0]!.title)],
      headers: who.dataHeaders,
    },
    {
      name: `${who.label} data of /status`,
      server: who.server,
      kind: 'dynamic-data',
      path: `${dataPrefix}/status.json`,
      expectedStatus: 200,
      body: 'text',
      markers: [`"deploymentId":${JSON.stringify(who.deploymentId)}`, '"nodeVersion"'],
      headers: who.dataHeaders,
    },
    {
      ...html,
      name: `${who.label} 404`,
      kind: 'not-found',
      path: '/no-such-page',
      expectedStatus: 404,
      markers: [titleEnd(`404: ${statusTitle(404)}`)],
    },
    {
      name: `${who.label} /robots.txt`,
      server: who.server,
      kind: 'robots',
      path: '/robots.txt',
      expectedStatus: 200,
      body: 'text',
      markers: ['User-agent: *', 'Sitemap: '],
    },
  ]
}

/** The floor of Courier's /status: the same document from Fastify and renderToPipeableStream alone. */
export async function bareStatusTarget(pages: readonly ServerPage[], courierDeploymentId: string): Promise<Target> {
  const status = pageAt(pages, '/status')
  return {
    name: 'bare /status',
    server: 'bare',
    kind: 'dynamic-page',
    path: '/status',
    expectedStatus: 200,
    body: 'html',
    markers: [await titleMarker(status, {}, courierDeploymentId), `>${courierDeploymentId}</dd>`],
  }
}
