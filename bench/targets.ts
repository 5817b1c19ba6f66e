/**
 * What the bench loads and how it knows a response is the right one. Expectations come from the page table of the
 * build under test (its SSR entry) and the server's loaders, never from a response: a run that gets error
 * pages must show errors, not throughput.
 */
import type { PageDefinition, RouteParams } from '../client/routes.ts'
import { statusTitle } from '../config/status-titles.ts'
import { pageServerSide } from '../src/pages/loaders.ts'
import type { ClientModule } from '../src/render/renderer.ts'
import { escapeHtml } from '../src/render/template.ts'

/** `unfiltered`: Courier with the request filter off (bench/unfiltered-server.ts), to price the filter. */
export type ServerName = 'courier' | 'bare' | 'unfiltered'

export interface Target {
  /** Shown in the table and the JSON, e.g. `Courier /status`. */
  name: string
  server: ServerName
  path: string
  expectedStatus: number
  /** Every good response body holds each of these. */
  markers: string[]
  /** Request headers (the image targets send an Accept). */
  headers?: Record<string, string>
  /** Binary targets: a good response has exactly this Content-Length (no document end, no markers). */
  expectedBytes?: number
}

/** The end of the built document: present only when the stream ran to its end (no aborted render). */
export const documentEnd = '</html>'

export type Verdict = 'ok' | 'unexpected-status' | 'body-mismatch'

export function judge(target: Target, status: number, body: string, headers: Record<string, string> = {}): Verdict {
  if (status !== target.expectedStatus) return 'unexpected-status'
  if (target.expectedBytes !== undefined) {
    return Number(headers['content-length']) === target.expectedBytes ? 'ok' : 'body-mismatch'
  }
  if (!body.trimEnd().endsWith(documentEnd)) return 'body-mismatch'
  return target.markers.every((marker) => body.includes(marker)) ? 'ok' : 'body-mismatch'
}

function pageAt(client: ClientModule, pattern: string): PageDefinition {
  const page = client.pages.find((candidate) => candidate.path === pattern)
  if (!page) throw new Error(`the build's page table has no page at ${pattern}`)
  return page
}

/** The page's `<title>` as Courier writes it, computed from the data its loader gives for these params. */
async function titleMarker(page: PageDefinition, params: RouteParams, deploymentId: string): Promise<string> {
  const load = pageServerSide[page.id]?.load
  const result = load ? await load({ params, query: {}, deploymentId }) : { props: {} }
  if (!('props' in result)) throw new Error(`the loader of ${page.id} gives no page for ${JSON.stringify(params)}`)
  const head = page.head(result.props as never, params)
  return `<title>${escapeHtml(head.title)}</title>`
}

export async function buildTargets(client: ClientModule, deploymentId: string): Promise<Target[]> {
  const home = pageAt(client, '/')
  const guide = pageAt(client, '/guides/:slug')
  const status = pageAt(client, '/status')
  const firstGuide = pageServerSide[guide.id]?.staticParams?.()[0]
  if (!firstGuide?.slug) throw new Error('there is no guide to load: the guide loader lists no slugs')
  const guidePath = `/guides/${encodeURIComponent(firstGuide.slug)}`
  const statusMarkers = [await titleMarker(status, {}, deploymentId), `>${deploymentId}</dd>`]

  const homeMarkers = [await titleMarker(home, {}, deploymentId)]
  return [
    { name: 'Courier /', server: 'courier', path: '/', expectedStatus: 200, markers: homeMarkers },
    // The filter's price is taken from alternating rounds of these two after the table (bench/run.ts).
    { name: 'Courier / (filter off)', server: 'unfiltered', path: '/', expectedStatus: 200, markers: homeMarkers },
    {
      name: `Courier ${guidePath}`,
      server: 'courier',
      path: guidePath,
      expectedStatus: 200,
      markers: [await titleMarker(guide, firstGuide, deploymentId)],
    },
    { name: 'Courier /status', server: 'courier', path: '/status', expectedStatus: 200, markers: statusMarkers },
    {
      name: 'Courier 404',
      server: 'courier',
      path: '/no-such-page',
      expectedStatus: 404,
      markers: [`<title>${escapeHtml(`404: ${statusTitle(404)}`)}</title>`],
    },
    { name: 'bare /status', server: 'bare', path: '/status', expectedStatus: 200, markers: statusMarkers },
  ]
}
