import type { PageAnswer } from '../../site/page-data.ts'
import type { RouteParams } from '../../site/page-types.ts'
import type { ContentSource } from '../content/content-source.ts'
import { withTimeOut } from '../toolbox/time-out.ts'
import type { ServerPage } from './site.ts'

/** What every loader is given besides its request's parameters and query. */
export interface LoaderContext {
  deploymentId: string
  /** What loaders read the site's content from (CONTENT_DIR). */
  content: ContentSource
}

/** A loader that did not answer within its time (config/content.ts loaderTimeoutMs). */
export class LoaderTimeoutError extends Error {
  override name = 'LoaderTimeoutError'
  constructor(timeoutMs: number) {
    super(`the loader did not answer in ${timeoutMs} ms`)
  }
}

/**
 * `work`, failed with a LoaderTimeoutError when it has not settled within `timeoutMs` (infinite: never). A first load
 * is bounded like a regeneration: a loader that never answers fails its requests (500, with a digest) and the next
 * request tries again, instead of holding every request of the page until a restart.
 */
export function withLoaderTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  return withTimeOut(work, timeoutMs, () => new LoaderTimeoutError(timeoutMs))
}

/** Runs a page's loader: its answer (without tags, which stay on the server) and the tags its props carry. */
export async function runLoader(
  page: ServerPage,
  params: RouteParams,
  query: Readonly<Record<string, unknown>>,
  context: LoaderContext,
): Promise<{ answer: PageAnswer; tags: readonly string[] }> {
  if (!page.load) return { answer: { props: {} }, tags: [] }
  const result = await page.load({ params, query, deploymentId: context.deploymentId, content: context.content })
  if (!('props' in result)) return { answer: result, tags: [] }
  return { answer: { props: result.props }, tags: result.tags ?? [] }
}
