import { pageAnswerKind, type PageAnswer } from '../../site/page-data.ts'
import { deploymentIdAttribute } from '../../config/tracing.ts'
import type { RegenerationReport } from '../pages/regeneration.ts'
import type { ServerPage } from '../pages/site.ts'
import type { PageMatch } from '../../site/match.ts'
import type { SpanParent, Tracing } from './tracing.ts'

/**
 * The page loader's span, under `parent` (the request for a page's document, the `courier.page_data` span for its
 * data): which page, and what its loader answered (props, notFound, redirect). A `static` page's first requests
 * wait here for the run whose answer is kept for the deployment; later ones take `traceKeptAnswer` below.
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
    span.setAttributes({ 'courier.loader.answer': pageAnswerKind(answerOf(result)) })
    return result
  })
}

/**
 * A `static` page answered from the entry kept for the deployment: no loader runs, so no loader span; the page and
 * its kept answer go on `parent` (the request span, or `courier.page_data`) instead. Nothing when it is not recorded.
 */
function traceKeptAnswer(tracing: Tracing, parent: SpanParent, page: ServerPage, answer: PageAnswer): void {
  if (!tracing.isRecording(parent)) return
  tracing.setAttributes(parent, {
    'courier.page.id': page.id,
    'courier.page.kind': page.kind,
    'courier.loader.answer': pageAnswerKind(answer),
    'courier.loader.kept': true,
  })
}

/** Where a `static` page instance's versions come from (src/pages/page-versions.ts), as tracing sees it. */
export interface StaticVersions<T> {
  keptVersion(match: PageMatch<ServerPage>): T | undefined
  staticVersion(match: PageMatch<ServerPage>): Promise<T>
}

/**
 * A `static` page instance's version, traced: the one kept for the deployment as it is (its answer on `parent`),
 * or, before its first loader run has ended, that run's (or the wait for it) under a loader span.
 */
export function tracedStaticVersion<T extends { answer: PageAnswer }>(
  tracing: Tracing,
  parent: SpanParent,
  versions: StaticVersions<T>,
  match: PageMatch<ServerPage>,
): T | Promise<T> {
  const kept = versions.keptVersion(match)
  if (kept) {
    traceKeptAnswer(tracing, parent, match.page, kept.answer)
    return kept
  }
  return traceLoader(
    tracing,
    parent,
    match.page,
    () => versions.staticVersion(match),
    (version) => version.answer,
  )
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
