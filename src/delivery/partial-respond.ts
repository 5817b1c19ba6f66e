import type { FastifyReply, FastifyRequest } from 'fastify'
import type { MetricsRecorder } from '../metrics/recorder.ts'
import { pageCacheControl } from '../pages/cache-control.ts'
import type { PartialRenderer, PartialRequest } from '../render/resume.ts'
import { allowScriptHashes } from '../render/shell-hash.ts'
import { renderSpanAttributes, traceRenderError, traceStreamedRender } from '../tracing/render-span.ts'
import { noSpan, tracingOff, type TraceSpan, type Tracing } from '../tracing/tracing.ts'
import type { Sender } from './send.ts'

/**
 * Sends a partly prerendered page from its kept shell: true once it is on its way; false when there is no shell (the
 * caller renders the page whole). Not the reply itself: a reply is thenable, and awaiting it waits for its end.
 */
export type RenderPartialDocument = (
  request: FastifyRequest,
  reply: FastifyReply,
  partial: PartialRequest,
) => Promise<boolean>

export interface PartialResponderOptions {
  /** The render of the shell and of its holes (src/render/resume.ts). */
  renderer: PartialRenderer
  /** How the bytes go on the wire (src/delivery/send.ts). */
  sender: Sender
  /** The document's per-request head tags (the `traceparent` meta). */
  headTags: (request: FastifyRequest) => string
  /** The render's span (plugins/tracing.ts): a `courier.render` span marked resumed; off by default. */
  tracing?: Tracing | undefined
  /** Told of the times to the shell (sent at once) and to the last hole (METRICS_PORT); none when metrics are off. */
  metrics?: MetricsRecorder | undefined
}

/**
 * The answer behind `fastify.renderPartialDocument` (plugins/documents.ts, docs/rendering.md "Partial
 * prerendering"): the sender chooses the coding and frames the kept shell with this request's nonce and head tags
 * (its gzip parts compressed once, src/delivery/kept-bytes.ts); the renderer writes the shell at once and the holes
 * resumed for this request in that coding's pieces; the reply allows React's nonce-less shell script by its hash. The
 * resumed render has its `courier.render` span, as a streamed render has (`courier.render.resumed`), from the shell
 * sent to the document's end.
 */
export function createPartialResponder(options: PartialResponderOptions): RenderPartialDocument {
  const { renderer, sender, headTags, tracing = tracingOff, metrics } = options
  return async function renderPartialDocument(request, reply, partial) {
    const started = performance.now()
    const shell = await renderer.shellOf(request, partial)
    if (!shell) return false
    const seconds = () => (performance.now() - started) / 1000
    const wire = sender.keptStreamCoding(request, shell.document, headTags(request))
    const span = tracing.isRecording(request) ? resumeSpan(tracing, request, partial) : noSpan
    const { stream, abort } = renderer.resume(request, partial, shell, wire, {
      onError: (error, digest) => traceRenderError(span, error, digest),
      onAllReady: metrics && (() => metrics.renderAllReady(request, 'page', seconds())),
    })
    traceStreamedRender(span, stream, started)
    allowScriptHashes(reply, shell.scriptHashes)
    reply.code(200).type('text/html; charset=utf-8').header('cache-control', pageCacheControl.dynamic)
    sender.sendStream(request, reply, wire.coding, stream, abort)
    metrics?.renderShellReady(request, 'page', seconds())
    return true
  }
}

/** The span of a render resumed from a kept shell: a streamed render's, marked resumed. */
function resumeSpan(tracing: Tracing, request: FastifyRequest, partial: PartialRequest): TraceSpan {
  const target = { type: 'page', page: partial.page, params: partial.params, data: partial.kept } as const
  const attributes = { ...renderSpanAttributes(target), 'courier.render.kept': false, 'courier.render.resumed': true }
  return tracing.startSpan(request, 'courier.render', { attributes })
}
