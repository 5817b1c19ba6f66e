import { router as timings } from '../../config/router.ts'
import { decodePageAnswer, deploymentIdHeader, type PageAnswer } from '../../src/common/page-data.ts'

/**
 * The internal error a navigation reports before it falls back to a full page load (docs/page-data-and-router.md "The
 * client router").
 */
export class PageDataError extends Error {
  override name = 'PageDataError'
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super('Failed to load page data')
  }
}

function wait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * Fetches page data, same-origin, with the deployment header. A 5xx or a network error is retried, `dataFetchAttempts`
 * in all with the configured backoff; anything else that is not data, a redirect or a not-found answer (a 409 skew,
 * an answer from another deployment, a 4xx) fails at once with a PageDataError.
 */
export async function fetchPageData(url: string, deploymentId: string): Promise<PageAnswer> {
  let reason = ''
  for (let attempt = 0; attempt < timings.dataFetchAttempts; attempt++) {
    if (attempt > 0) await wait(timings.dataFetchBackoffMs[attempt - 1] ?? 0)
    let response: Response
    try {
      // The router keeps its own freshness; the HTTP cache always asks the server (with the ETag). A content page's
      // data carries stale-while-revalidate for a CDN (docs/content.md), which Chromium's own cache honours too: it
      // would hand the router the old answer and refetch it behind its back.
      response = await fetch(url, {
        headers: { [deploymentIdHeader]: deploymentId },
        credentials: 'same-origin',
        cache: 'no-cache',
      })
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

async function readAnswer(url: string, response: Response, deploymentId: string): Promise<PageAnswer> {
  const answeredBy = response.headers.get(deploymentIdHeader)
  if (answeredBy !== deploymentId) throw new PageDataError(url, `deployment ${String(answeredBy)} answered`)
  if (response.status !== 200 && response.status !== 404) throw new PageDataError(url, `status ${response.status}`)
  let json: unknown
  try {
    json = await response.json()
  } catch {
    throw new PageDataError(url, 'the answer is not JSON')
  }
  const answer = decodePageAnswer(response.status, json)
  if (!answer) throw new PageDataError(url, `unexpected answer, status ${response.status}`)
  return answer
}
