import { router as timings } from '../../config/router.ts'
import type { PageKind } from '../routes.ts'

/** What a page-data answer means for a navigation (the server's plugins/page-data.ts). */
export type PageData =
  | { type: 'props'; props: unknown; kind: PageKind }
  | { type: 'redirect'; destination: string }
  | { type: 'notFound' }

/** The internal error a navigation reports before it falls back to a full page load (DESIGN.md section 6). */
export class PageDataError extends Error {
  override name = 'PageDataError'
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super('Failed to load page data')
  }
}

/** `/` -> `/_next/data/<id>/index.json`, `/guides/x?q=1` -> `/_next/data/<id>/guides/x.json?q=1`. */
export function pageDataUrl(deploymentId: string, target: URL): string {
  const path = target.pathname.replace(/\/+$/, '') || '/index'
  return `/_next/data/${encodeURIComponent(deploymentId)}${path}.json${target.search}`
}

function wait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * Fetches page data, same-origin, with the deployment header. A 5xx or a network error is retried, `dataFetchAttempts`
 * in all with the configured backoff; anything else that is not data, a redirect or a not-found answer (a 409 skew,
 * an answer from another deployment, a 4xx) fails at once with a PageDataError.
 */
export async function fetchPageData(url: string, deploymentId: string): Promise<PageData> {
  let reason = ''
  for (let attempt = 0; attempt < timings.dataFetchAttempts; attempt++) {
    if (attempt > 0) await wait(timings.dataFetchBackoffMs[attempt - 1] ?? 0)
    let response: Response
    try {
      response = await fetch(url, { headers: { 'x-deployment-id': deploymentId }, credentials: 'same-origin' })
    } catch (error) {
      reason = String(error)
      continue
    }
    if (response.status >= 500) {
      reason = `status ${response.status}`
      continue
    }
    return readAnswer(url, response, deploymentId)
  }
  throw new PageDataError(url, reason)
}

async function readAnswer(url: string, response: Response, deploymentId: string): Promise<PageData> {
  const answeredBy = response.headers.get('x-deployment-id')
  if (answeredBy !== deploymentId) throw new PageDataError(url, `deployment ${String(answeredBy)} answered`)
  if (response.status !== 200 && response.status !== 404) throw new PageDataError(url, `status ${response.status}`)
  let body: { pageProps?: unknown; kind?: PageKind; notFound?: boolean; redirect?: { destination?: unknown } }
  try {
    body = (await response.json()) as typeof body
  } catch {
    throw new PageDataError(url, 'the answer is not JSON')
  }
  if (response.status === 404 && body.notFound === true) return { type: 'notFound' }
  if (response.status === 200 && typeof body.redirect?.destination === 'string') {
    return { type: 'redirect', destination: body.redirect.destination }
  }
  if (response.status === 200 && 'pageProps' in body && body.kind) {
    return { type: 'props', props: body.pageProps, kind: body.kind }
  }
  throw new PageDataError(url, `unexpected answer, status ${response.status}`)
}
