import type { FastifyReply, FastifyRequest } from 'fastify'
import { caches } from '../../config/caches.ts'
import { addVary } from '../compression/vary.ts'
import { variesByVisitor } from '../pages/cache-control.ts'
import type { MetricsRecorder } from '../metrics/recorder.ts'
import { DocumentCache, type KeptDocument, type KeptDocumentSlot } from '../render/document-cache.ts'
import { statusAndCacheControl, type RenderTarget } from '../render/document-target.ts'
import type { DocumentAnswer, DocumentRenderer } from '../render/renderer.ts'
import { partialTarget } from '../render/resume.ts'
import { allowScriptHashes } from '../render/shell-hash.ts'
import type { StreamedDocument } from '../render/stream.ts'
import {
  renderSpanAttributes,
  traceKeptDocument,
  traceRenderError,
  traceStreamedRender,
} from '../tracing/render-span.ts'
import { tracingOff, type TraceSpan, type Tracing } from '../tracing/tracing.ts'
import type { Sender } from './send.ts'

/**
 * Renders one document (a page, a partly prerendered page or the error page) for a request and sends it
 * (src/render/renderer.ts `DocumentAnswer`).
 */
export type RenderDocument = (
  request: FastifyRequest,
  reply: FastifyReply,
  answer: DocumentAnswer,
) => Promise<FastifyReply>

export interface ResponderOptions {
  /** The renderer (src/render/renderer.ts): a document to keep, or a stream for this request. */
  renderer: DocumentRenderer
  /** How the bytes go on the wire (src/delivery/send.ts). */
  sender: Sender
  /** Keep documents at all: off in development, where the template and the client change with every edit. */
  keepDocuments: boolean
  /** The render's span and the document's `traceparent` meta (plugins/tracing.ts); off by default. */
  tracing?: Tracing | undefined
  /** Told of kept documents sent and of render times (METRICS_PORT); none when metrics are off. */
  metrics?: MetricsRecorder | undefined
}

/** What a document's render gave: the kept document, or this request's stream, in plain bytes, and when it started. */
type Rendered =
  { type: 'kept'; document: KeptDocument } | { type: 'stream'; document: StreamedDocument; started: number }

/**
 * The document answer behind `fastify.renderDocument` (plugins/documents.ts), for every kind of document: chooses the
 * slot a document is kept in, wraps the render in its span and metrics, and hands the bytes to the sender with the
 * answer's status and Cache-Control. A kept document that is ready renders nothing: no render span, the request span
 * says it was sent. A streamed one comes from the renderer in plain bytes, the sender frames it in the coding it
 * chooses; one resumed from a kept shell allows the shell's nonce-less script by its hash and says so on its span.
 */
export function createDocumentResponder(options: ResponderOptions): RenderDocument {
  const { renderer, sender, keepDocuments, tracing = tracingOff, metrics } = options
  // Error documents without a digest, kept by status (config/caches.ts).
  const errorDocuments = new DocumentCache(keepDocuments ? caches.errorDocuments.maxEntries : 0)

  /**
   * The slot this document is kept in, if it is one to keep (an error page's has no request value without a digest).
   */
  function slotFor(answer: DocumentAnswer): KeptDocumentSlot | undefined {
    if (!keepDocuments || answer.type !== 'whole') return undefined
    const { target, kept } = answer
    if (target.type === 'page') return target.page.kind === 'static' ? kept : undefined
    return target.digest ? undefined : errorDocuments.slot(`error:${target.statusCode}`)
  }

  function answerHead(request: FastifyRequest, reply: FastifyReply, target: RenderTarget): FastifyReply {
    const [statusCode, cacheControl] = statusAndCacheControl(target, request)
    if (variesByVisitor(cacheControl)) addVary(reply, 'Cookie')
    return reply.code(statusCode).type('text/html; charset=utf-8').header('cache-control', cacheControl)
  }

  /** The request's traceparent, on pages only: an error page shows its digest and nothing else of the failure. */
  function headTagsOf(request: FastifyRequest, target: RenderTarget): string {
    return target.type === 'page' ? tracing.documentMeta(request) : ''
  }

  /** The kept document of the slot, rendered once on first use, or else a stream of this request's. */
  async function render(
    request: FastifyRequest,
    answer: DocumentAnswer,
    target: RenderTarget,
    slot: KeptDocumentSlot | undefined,
    span: TraceSpan,
  ): Promise<Rendered> {
    const document = slot ? await slot.get(() => renderer.renderKept(request, target)) : undefined
    if (document) return { type: 'kept', document } satisfies Rendered
    let started = performance.now()
    const seconds = () => (performance.now() - started) / 1000
    const streamed = await renderer.renderStream(request, answer, {
      onStart: () => (started = performance.now()),
      onError: (error, digest) => traceRenderError(span, error, digest),
      onAllReady: metrics && (() => metrics.renderAllReady(request, target.type, seconds())),
    })
    metrics?.renderShellReady(request, target.type, seconds())
    return { type: 'stream', document: streamed, started } satisfies Rendered
  }

  return async function renderDocument(request, reply, answer) {
    // A partly prerendered page is its page to the span, the metrics and the answer's head.
    const target = answer.type === 'whole' ? answer.target : partialTarget(answer.partial)
    const headTags = headTagsOf(request, target)
    const slot = slotFor(answer)
    const ready = slot?.ready
    if (ready) {
      // Nothing renders: no render span; the request span says the kept document was sent (docs/operations.md
      // "Traces").
      traceKeptDocument(tracing, request, target)
      metrics?.keptDocumentSent(request, target.type)
      return sender.sendKeptDocument(request, answerHead(request, reply, target), ready, headTags)
    }
    const span = tracing.startSpan(request, 'courier.render', { attributes: renderSpanAttributes(target) })
    const rendered = await render(request, answer, target, slot, span).catch((error: unknown) => {
      span.end()
      throw error
    })
    if (rendered.type === 'kept') {
      span.setAttributes({ 'courier.render.kept': true })
      span.end()
      metrics?.keptDocumentSent(request, target.type)
      return sender.sendKeptDocument(request, answerHead(request, reply, target), rendered.document, headTags)
    }
    const { document, started } = rendered
    const { prelude } = document
    span.setAttributes({ 'courier.render.kept': false })
    if (prelude.type === 'shell') {
      span.setAttributes({ 'courier.render.resumed': true })
      allowScriptHashes(reply, prelude.scriptHashes)
    }
    const framed = sender.frameStream(request, document, headTags)
    traceStreamedRender(span, framed.stream, started)
    return sender.sendStream(request, answerHead(request, reply, target), framed, document.body)
  }
}
