import type { PageAnswer } from '../../site/page-data.ts'
import type { RouteParams } from '../../site/page-types.ts'
import type { ContentSource } from '../content/content-source.ts'
import type { ServerPage } from './site.ts'

/** What every loader is given besides its request's parameters and query. */
export interface LoaderContext {
  deploymentId: string
  /** What loaders read the site's content from (CONTENT_DIR). */
  content: ContentSource
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
