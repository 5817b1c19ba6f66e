import type { FastifyReply, FastifyRequest } from 'fastify'
import { caches } from '../../config/caches.ts'
import { addVary } from '../compression/vary.ts'
import { variesByVisitor } from '../pages/cache-control.ts'
import type { Readable } from 'node:stream'
import type { MetricsRecorder } from '../metrics/recorder.ts'
import { DocumentCache, type KeptDocument, type KeptDocumentSlot } from '../render/document-cache.ts'
import { statusAndCacheControl, type RenderTarget } from '../render/document-target.ts'
import type { DocumentRenderer, RenderWatch } from '../render/renderer.ts'
import {
  renderSpanAttributes,
  traceKeptDocument,
  traceRenderError,
  traceStreamedRender,
} from '../tracing/render-span.ts'
import { tracingOff, type Tracing } from '../tracing/tracing.ts'
import type { Coding } from '../compression/negotiate.ts'
import type { Sender } from './send.ts'

/**
 * Renders one document (a page or the error page) for a request and sends it. `kept`: where the document of a page
 * that is the same for every request but for its nonce is kept (a `static` page version, src/render/page-documents.ts).
 */
export type RenderDocument = (
  request: FastifyRequest,
  reply: FastifyReply,
  target: RenderTarget,
  kept?: KeptDocumentSlot,
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

/** What a document's render gave: the kept document, or this request's stream in the coding the sender chose. */
type Rendered =
  | { type: 'kept'; document: KeptDocument }
  | { type: 'stream'; stream: Readable; coding: Coding; abort: (reason: Error) => void }

/**
 * The document answer behind `fastify.renderDocument` (plugins/documents.ts): chooses the slot a document is kept in,
 * wraps the render in its span and metrics, and hands the bytes to the sender with the answer's status and
 * Cache-Control. A kept document that is ready renders nothing: no render span, the request span says it was sent.
 * A streamed one is framed before its render starts: the sender chooses its coding from the document's opening, the
 * renderer writes in the pieces of that coding, and the sender sends the stream in the coding it chose.
 */
export function createDocumentResponder(options: ResponderOptions): RenderDocument {
  const { renderer, sender, keepDocuments, tracing = tracingOff, metrics } = options
  // Error documents without a digest, kept by status (config/caches.ts).
  const errorDocuments = new DocumentCache(keepDocuments ? caches.errorDocuments.maxEntries : 0)

  /**
   * The slot this document is kept in, if it is one to keep (an error page's has no request value without a digest).
   */
  function slotFor(target: RenderTarget, kept: KeptDocumentSlot | undefined): KeptDocumentSlot | undefined {
    if (!keepDocuments) return undefined
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

  return async function renderDocument(request, reply, target, kept) {
    const slot = slotFor(target, kept)
    const headTags = headTagsOf(request, target)
    const ready = slot?.ready
    if (ready) {
      // Nothing renders: no render span; the request span says the kept document was sent (docs/operations.md
      // "Traces").
      traceKeptDocument(tracing, request, target)
      metrics?.keptDocumentSent(request, target.type)
      return sender.sendKeptDocument(request, answerHead(request, reply, target), ready, headTags)
    }
    const span = tracing.startSpan(request, 'courier.render', { attributes: renderSpanAttributes(target) })
    let renderStarted = performance.now()
    const seconds = () => (performance.now() - renderStarted) / 1000
    const watch: RenderWatch = {
      onError: (error, digest) => traceRenderError(span, error, digest),
      onShellReady: metrics && (() => metrics.renderShellReady(request, target.type, seconds())),
      onAllReady: metrics && (() => metrics.renderAllReady(request, target.type, seconds())),
    }
    /** The kept document of the slot, rendered once on first use, or else a stream of this request's. */
    async function render(): Promise<Rendered> {
      const document = slot ? await slot.get(() => renderer.renderKept(request, target)) : undefined
      if (document) return { type: 'kept', document }
      // The stream's render starts (after any attempt to keep the document): its times count from here.
      renderStarted = performance.now()
      const opening = renderer.openingOf(target)
      const wire = sender.streamCoding(request, opening.template, opening.head, headTags)
      const { stream, abort } = await renderer.renderStream(request, target, opening, wire, watch)
      return { type: 'stream', stream, coding: wire.coding, abort }
    }
    const rendered = await render().catch((error: unknown) => {
      span.end()
      throw error
    })
    if (rendered.type === 'kept') {
      span.setAttributes({ 'courier.render.kept': true })
      span.end()
      metrics?.keptDocumentSent(request, target.type)
      return sender.sendKeptDocument(request, answerHead(request, reply, target), rendered.document, headTags)
    }
    span.setAttributes({ 'courier.render.kept': false })
    traceStreamedRender(span, rendered.stream, renderStarted)
    return sender.sendStream(
      request,
      answerHead(request, reply, target),
      rendered.coding,
      rendered.stream,
      rendered.abort,
    )
  }
}
