import { pageAnswerKind } from '../common/page-data.ts'
import { deploymentIdAttribute } from '../../config/tracing.ts'
import type { RegenerationReport } from '../pages/regeneration.ts'
import type { ServerPage } from '../pages/site.ts'
import { keptAnswers, pageLoads, type PageLoad } from '../pages/page-answers.ts'
import type { SpanParent, TraceSpan, Tracing } from './tracing.ts'

/**
 * Page spans, observed (src/pages/page-answers.ts publishes them; nothing here steers the pages): a `courier.page_loader`
 * span under the route's span parent (the request for a document, `courier.page_data` for its data) for each loader
 * run a request waits for (a `dynamic` page's, a `static` page's first load, its own or one it shares), with the page
 * and what its loader answered (props, notFound, redirect); a `static` page answered from its kept version runs no
 * loader, so its page and kept answer go on the parent instead. Only the loads of `owner` (one app's page versions):
 * the channels are the process's. Returns the unsubscribe.
 */
export function observePageSpans(tracing: Tracing, owner: object): () => void {
  const spans = new WeakMap<PageLoad, TraceSpan>()
  const loads = {
    start(context: PageLoad) {
      const parent = context.origin as SpanParent
      if (context.owner !== owner || !tracing.isRecording(parent)) return
      const attributes = { 'courier.page.id': context.page.id, 'courier.page.kind': context.page.kind }
      spans.set(context, tracing.startSpan(parent, 'courier.page_loader', { attributes }))
    },
    error(context: PageLoad) {
      // The digest comes later, from the error handler, onto the request span (requestFailed).
      spans.get(context)?.fail(context.error, undefined)
    },
    asyncEnd(context: PageLoad) {
      const span = spans.get(context)
      if (!span) return
      if (context.answer) span.setAttributes({ 'courier.loader.answer': pageAnswerKind(context.answer) })
      span.end()
    },
  }
  const keptAnswer = (message: unknown) => {
    const { owner: from, origin, page, answer } = message as PageLoad
    if (from !== owner || !answer || !tracing.isRecording(origin as SpanParent)) return
    tracing.setAttributes(origin as SpanParent, {
      'courier.page.id': page.id,
      'courier.page.kind': page.kind,
      'courier.loader.answer': pageAnswerKind(answer),
      'courier.loader.kept': true,
    })
  }
  pageLoads.subscribe(loads)
  keptAnswers.subscribe(keptAnswer)
  return function unsubscribePageSpans() {
    pageLoads.unsubscribe(loads)
    keptAnswers.unsubscribe(keptAnswer)
  }
}

/**
 * A kept page's regeneration, made when its end is reported (src/pages/regeneration.ts): the root of a trace of its
 * own, since no request waits for it (a stale page's runs behind the request that found it stale; one on demand runs
 * on every instance told). It starts the duration measured before its end. A failure: ERROR, its exception and the
 * digest of its log line. Nothing with tracing off.
 */
export function traceRegeneration(
  tracing: Tracing,
  report: RegenerationReport,
  deploymentId: string,
  digest?: string,
): void {
  if (!tracing.enabled) return
  const endedAt = performance.now()
  const span = tracing.startRootSpan('courier.page_regeneration', {
    startTime: endedAt - report.durationMs,
    attributes: {
      'courier.page.id': report.page.id,
      'courier.page.path': report.path,
      'courier.regeneration.reason': report.reason,
      'courier.regeneration.outcome': report.outcome,
      'courier.regeneration.loader_ran': report.loaderRan,
      [deploymentIdAttribute]: deploymentId,
    },
  })
  if (report.outcome === 'failed') span.fail(report.error, digest)
  span.end(endedAt)
}
