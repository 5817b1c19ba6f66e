import type { PageAnswer } from '../pages/answers.ts'
import type { ServerPage } from '../pages/site.ts'
import type { SpanParent, Tracing } from './tracing.ts'

/**
 * The page loader's span, under `parent` (the request for a page's document, the `courier.page_data` span for its
 * data): which page, and what its loader answered (props, notFound, redirect). For a `static` page the answer kept
 * for the deployment is reused (no loader runs): the span then takes next to no time.
 */
export function traceLoader<T>(
  tracing: Tracing,
  parent: SpanParent,
  page: ServerPage,
  load: () => Promise<T>,
  answerOf: (result: T) => PageAnswer,
): Promise<T> {
  const attributes = { 'courier.page.id': page.id, 'courier.page.kind': page.kind }
  return tracing.inSpan(parent, 'courier.page_loader', { attributes }, async function runLoader(span) {
    const result = await load()
    span.setAttributes({ 'courier.loader.answer': answerOf(result).type })
    return result
  })
}
