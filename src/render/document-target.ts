import type { FastifyRequest } from 'fastify'
import type { DocumentState } from '../common/document-state.ts'
import type { PageDefinition, RouteParams } from '../common/page-types.ts'
import { statusTitle } from '../../config/status-titles.ts'
import { pageCacheControl, pageCacheControlOf } from '../pages/cache-control.ts'
import { errorDocumentHead } from './error-documents.ts'
import type { PagePreloads } from './page-preloads.ts'
import type { DocumentHead } from './template.ts'

/**
 * What a document shows: a page with its data, or the error page for a status (with the digest of a 5xx's log
 * line).
 */
export type RenderTarget =
  | {
      type: 'page'
      page: PageDefinition
      params: RouteParams
      data: unknown
      /** A submission the page's action refused: what it said, and the status (422 or 400) the page is sent with. */
      refused?: { actionData: unknown; statusCode: 400 | 422 }
    }
  | { type: 'error'; statusCode: number; digest?: string }

/** The state the client reads from the document: what it hydrates. `host`: where the error page says to report. */
export function stateFor(target: RenderTarget, deploymentId: string, host: string): DocumentState {
  if (target.type === 'page') {
    return {
      type: 'page',
      pageId: target.page.id,
      kind: target.page.kind,
      params: target.params,
      data: target.data,
      deploymentId,
      ...(target.refused ? { actionData: target.refused.actionData } : {}),
    }
  }
  return {
    type: 'error',
    statusCode: target.statusCode,
    title: statusTitle(target.statusCode),
    ...(target.digest ? { digest: target.digest, host } : {}),
    deploymentId,
  }
}

/** The head of the document: the page's own (title, description) and the chunks it needs, or the error page's. */
export function headFor(
  target: RenderTarget,
  preloadsFor: ((pageId: string) => PagePreloads) | undefined,
): DocumentHead {
  if (target.type === 'error') return errorDocumentHead(target.statusCode)
  const preloads = preloadsFor?.(target.page.id)
  return {
    ...target.page.head(target.data, target.params),
    ...(preloads ? { preloadModules: preloads.modules, preloadStyles: preloads.styles } : {}),
  }
}

/** The status and Cache-Control of the document's answer. */
export function statusAndCacheControl(target: RenderTarget, request: FastifyRequest): [number, string] {
  if (target.type === 'error') return [target.statusCode, pageCacheControl.error]
  // A refused submission is the visitor's own: never kept nor shared, whatever the page's kind.
  if (target.refused) return [target.refused.statusCode, pageCacheControl.dynamic]
  return [200, pageCacheControlOf(target.page, request.cspNonce !== undefined)]
}

/** A key that names the document in logs. */
export function documentName(target: RenderTarget): string {
  return target.type === 'page'
    ? `page:${target.page.id}:${JSON.stringify(target.params)}`
    : `error:${target.statusCode}`
}
