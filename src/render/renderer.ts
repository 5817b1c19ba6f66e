import type { FastifyReply, FastifyRequest } from 'fastify'
import type { DocumentState } from '../../site/document-state.ts'
import type { PageDefinition, RouteParams } from '../../site/pages.ts'
import { statusTitle } from '../../config/status-titles.ts'
import { assignDigest } from '../digest.ts'
import { pageCacheControl, pageCacheControlOf } from '../pages/cache-control.ts'
import { errorDocumentHead, lateErrorScreen } from './error-documents.ts'
import type { PagePreloads } from './page-preloads.ts'
import { serializeForScript } from './serialize.ts'
import { ClientGoneError, RenderTimeoutError, renderStream } from './stream.ts'
import { compression } from '../../config/compression.ts'
import { flushedStream } from '../compression/compress.ts'
import { gzipPieces, identityPieces } from '../compression/pieces.ts'
import { negotiateCoding } from '../compression/negotiate.ts'
import { addVary } from '../compression/vary.ts'
import {
  DocumentCache,
  documentBytes,
  gzippedDocumentBytes,
  zstdDocumentBytes,
  type KeptDocument,
  type KeptDocumentSlot,
} from './document-cache.ts'
import { KeptOpenings } from './kept-openings.ts'
import { renderOnce } from './render-once.ts'
import type { DocumentHead, DocumentTemplate } from './template.ts'
import type { DocumentSource } from './vite-client.ts'
import { tracingOff, type Tracing } from '../tracing/tracing.ts'
import { traceKeptDocument, traceStreamedRender, renderSpanAttributes } from '../tracing/render-span.ts'
import type { MetricsRecorder } from '../metrics/recorder.ts'

export type RenderTarget =
  | { type: 'page'; page: PageDefinition; params: RouteParams; data: unknown }
  | { type: 'error'; statusCode: number; digest?: string }

/**
 * Renders one document (a page or the error page) for a request and sends it. `kept`: where the document of a page
 * that is the same for every request but for its nonce is kept (a `static` page instance, src/pages/answers.ts).
 */
export type RenderDocument = (
  request: FastifyRequest,
  reply: FastifyReply,
  target: RenderTarget,
  kept?: KeptDocumentSlot,
) => Promise<FastifyReply>

export interface RendererOptions {
  source: DocumentSource
  deploymentId: string
  renderTimeoutMs: number
  /** The chunks a page needs beyond the entry (production); none in development, where Vite serves modules. */
  preloadsFor?: ((pageId: string) => PagePreloads) | undefined
  /** Keep documents at all: off in development, where the template and the client change with every edit. */
  keepDocuments: boolean
  /** The render's span and the document's `traceparent` meta (plugins/tracing.ts); off by default. */
  tracing?: Tracing | undefined
  /** Told of kept documents sent and of render times (METRICS_PORT); none when metrics are off. */
  metrics?: MetricsRecorder | undefined
}


/** Error documents without a digest are kept by status: at most one per 4xx and 5xx status. */
const errorStatuses = 200

function stateFor(target: RenderTarget, deploymentId: string, host: string): DocumentState {
  if (target.type === 'page') {
    return {
      type: 'page',
      pageId: target.page.id,
      kind: target.page.kind,
      params: target.params,
      data: target.data,
      deploymentId,
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

function headFor(target: RenderTarget, preloadsFor: RendererOptions['preloadsFor']): DocumentHead {
  if (target.type === 'error') return errorDocumentHead(target.statusCode)
  const preloads = preloadsFor?.(target.page.id)
  return {
    ...target.page.head(target.data, target.params),
    ...(preloads ? { preloadModules: preloads.modules, preloadStyles: preloads.styles } : {}),
  }
}

function statusAndCacheControl(target: RenderTarget, request: FastifyRequest): [number, string] {
  return target.type === 'page'
    ? [200, pageCacheControlOf(target.page, request.cspNonce !== undefined)]
    : [target.statusCode, pageCacheControl.error]
}

function reportRenderError(request: FastifyRequest, error: unknown): string | undefined {
  if (error instanceof ClientGoneError) return undefined
  const { digest, isNew } = assignDigest(error, request.id)
  if (isNew) {
    if (error instanceof RenderTimeoutError) request.log.warn({ err: error, digest }, 'render timed out')
    else request.log.error({ err: error, digest }, 'render failed')
  }
  return digest
}

/**
 * The document renderer behind `fastify.renderDocument` (plugins/documents.ts). A document that is the same for
 * every request but for its nonce (a `static` page instance, an error page without a digest) is rendered once with a
 * placeholder nonce and kept; each request gets its bytes with its own nonce. Any other document streams with
 * renderToPipeableStream: status and headers go out when the shell is ready; an error before that rejects, for the
 * error handler to answer.
 */
export function createDocumentRenderer(options: RendererOptions): RenderDocument {
  const { source, deploymentId, renderTimeoutMs, preloadsFor, keepDocuments, tracing = tracingOff, metrics } = options
  const errorDocuments = new DocumentCache(keepDocuments ? errorStatuses : 0)
  const keptOpenings = new KeptOpenings()

  /** Renders the document of `target` once, with the placeholder nonce; undefined when it is not worth keeping. */
  async function renderKept(request: FastifyRequest, template: DocumentTemplate, target: RenderTarget) {
    const state = stateFor(target, deploymentId, '')
    const stateJson = serializeForScript(state)
    const head = headFor(target, preloadsFor)
    const result = await renderOnce({
      element: await source.client().createElement(state),
      opening: (nonce) => template.open(head, nonce),
      closing: (nonce) => template.close(stateJson, nonce),
      timeoutMs: renderTimeoutMs,
    }).catch(() => 'render-error' as const)
    const document =
      target.type === 'page' ? `page:${target.page.id}:${JSON.stringify(target.params)}` : `error:${target.statusCode}`
    if (typeof result === 'string') {
      request.log.debug({ document, reason: result }, 'document not kept')
      return undefined
    }
    request.log.debug({ document, bytes: result.length }, 'document rendered once')
    return { ...result, headAt: template.headTagsAt }
  }

  function sendKept(request: FastifyRequest, reply: FastifyReply, target: RenderTarget, document: KeptDocument) {
    const [statusCode, cacheControl] = statusAndCacheControl(target, request)
    reply.code(statusCode).type('text/html; charset=utf-8').header('cache-control', cacheControl)
    addVary(reply, 'accept-encoding')
    // The request's traceparent, on pages only: an error page shows its digest and nothing else of the failure.
    const meta = target.type === 'page' ? tracing.documentMeta(request) : ''
    const headTags = meta ? Buffer.from(meta, 'latin1') : undefined
    // gzip and zstd: the parts are compressed once, so a request costs a CRC (gzip) or a copy (zstd), not a
    // compression. Where only brotli will do, plugins/compression.ts compresses the bytes per request.
    const coding = negotiateCoding(request.headers['accept-encoding'], compression.codingPreference.keptDocument)
    if (coding === 'gzip') {
      return reply.header('content-encoding', 'gzip').send(gzippedDocumentBytes(document, request.cspNonce, headTags))
    }
    if (coding === 'zstd') {
      return reply.header('content-encoding', 'zstd').send(zstdDocumentBytes(document, request.cspNonce, headTags))
    }
    return reply.send(documentBytes(document, request.cspNonce, headTags))
  }

  /** The slot this document is kept in, if it is one to keep (an error page's has no request value without a digest). */
  function slotFor(target: RenderTarget, kept: KeptDocumentSlot | undefined): KeptDocumentSlot | undefined {
    if (!keepDocuments) return undefined
    if (target.type === 'page') return target.page.kind === 'static' ? kept : undefined
    return target.digest ? undefined : errorDocuments.slot(`error:${target.statusCode}`)
  }

  return async function renderDocument(request, reply, target, kept) {
    const slot = slotFor(target, kept)
    const ready = slot?.ready
    if (ready) {
      // Nothing renders: no render span; the request span says the kept document was sent (docs/operations.md "Traces").
      traceKeptDocument(tracing, request, target)
      metrics?.keptDocumentSent(request, target.type)
      return sendKept(request, reply, target, ready)
    }
    const span = tracing.startSpan(request, 'courier.render', { attributes: renderSpanAttributes(target) })
    const template = source.template()
    if (slot) {
      const document = await slot.get(() => renderKept(request, template, target))
      if (document) {
        span.setAttributes({ 'courier.render.kept': true })
        span.end()
        metrics?.keptDocumentSent(request, target.type)
        return sendKept(request, reply, target, document)
      }
    }
    span.setAttributes({ 'courier.render.kept': false })
    const renderStarted = performance.now()
    const nonce = request.cspNonce
    const state = stateFor(target, deploymentId, request.host)
    const element = await source.client().createElement(state)
    // The first boundary that failed: once the shell is out, the document ends with the error screen for it.
    let failedBoundaryDigest: string | undefined
    // gzip in pieces as React writes them; brotli or zstd through a compressor flushed once per piece.
    const coding = negotiateCoding(request.headers['accept-encoding'], compression.codingPreference.streamedDocument)
    const head = headFor(target, preloadsFor)
    const headTags = target.type === 'page' ? tracing.documentMeta(request) : ''
    // gzip: the opening compressed once and kept, where it can be (src/render/kept-openings.ts).
    const keptOpening = coding === 'gzip' ? keptOpenings.gzipStart(template, head, nonce, headTags) : undefined
    const { stream, abort } = await renderStream({
      element,
      coding: coding === 'gzip' ? gzipPieces(keptOpening?.start, keptOpening?.sent) : identityPieces,
      opening: keptOpening ? '' : template.open(head, nonce, headTags),
      closing: () =>
        template.close(
          serializeForScript(state),
          nonce,
          failedBoundaryDigest ? lateErrorScreen(request.host, failedBoundaryDigest) : '',
        ),
      nonce,
      timeoutMs: renderTimeoutMs,
      onError(error) {
        const digest = reportRenderError(request, error)
        failedBoundaryDigest ??= digest
        if (error instanceof ClientGoneError || error instanceof RenderTimeoutError) span.setAttributes({ 'courier.render.aborted': true })
        if (!(error instanceof ClientGoneError)) span.fail(error, digest)
        return digest
      },
      onShellReady: metrics && (() => metrics.renderShellReady(request, target.type, (performance.now() - renderStarted) / 1000)),
      onAllReady: metrics && (() => metrics.renderAllReady(request, target.type, (performance.now() - renderStarted) / 1000)),
    }).catch((error: unknown) => {
      span.end()
      throw error
    })
    traceStreamedRender(span, stream, renderStarted)
    reply.raw.once('close', function abortWhenClientGone() {
      if (reply.raw.writableFinished) return
      request.log.debug('render aborted: the client closed the connection')
      abort(new ClientGoneError('the client closed the connection'))
    })
    const [statusCode, cacheControl] = statusAndCacheControl(target, request)
    reply.code(statusCode).type('text/html; charset=utf-8').header('cache-control', cacheControl)
    addVary(reply, 'accept-encoding')
    if (coding === 'identity') return reply.send(stream)
    return reply.header('content-encoding', coding).send(coding === 'gzip' ? stream : flushedStream(stream, coding))
  }
}
