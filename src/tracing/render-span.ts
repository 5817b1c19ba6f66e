import type { Readable } from 'node:stream'
import type { RenderTarget } from '../render/document-target.ts'
import { ClientGoneError, RenderTimeoutError } from '../render/stream.ts'
import type { FastifyRequest } from 'fastify'
import { noSpan, type SpanAttributes, type TraceSpan, type Tracing } from './tracing.ts'

/** What the render span says of its document. */
export function renderSpanAttributes(target: RenderTarget): SpanAttributes {
  return target.type === 'page'
    ? { 'courier.render.target': 'page', 'courier.page.id': target.page.id, 'courier.page.kind': target.page.kind }
    : { 'courier.render.target': 'error', 'http.response.status_code': target.statusCode }
}

/**
 * A document kept for the deployment, sent with this request's nonce: nothing renders, so no render span; what it
 * would have said goes on the request span. Nothing when the request is not sampled.
 */
export function traceKeptDocument(tracing: Tracing, request: FastifyRequest, target: RenderTarget): void {
  if (!tracing.isRecording(request)) return
  tracing.setAttributes(request, { ...renderSpanAttributes(target), 'courier.render.kept': true })
}

/**
 * An error React reported during a streamed render, on the render's span: aborted when the client went away or the
 * time-out cut the render; failed, with the digest the client was given, unless the client went away.
 */
export function traceRenderError(span: TraceSpan, error: unknown, digest: string | undefined): void {
  if (error instanceof ClientGoneError || error instanceof RenderTimeoutError) {
    span.setAttributes({ 'courier.render.aborted': true })
  }
  if (!(error instanceof ClientGoneError)) span.fail(error, digest)
}

function elapsedMs(since: number): number {
  return Math.round((performance.now() - since) * 100) / 100
}

/**
 * The streamed render's timings on its span: time to shell now (the shell is ready when the stream is handed over),
 * time to all ready when React's output ends; aborted when the stream closes before its end (the client went away,
 * or the time-out cut it). The span ends then.
 */
export function traceStreamedRender(span: TraceSpan, stream: Readable, startedAt: number): void {
  // Not traced (tracing off, or a request not sampled): no listeners on the stream, nothing timed.
  if (span === noSpan) return
  span.setAttributes({ 'courier.render.time_to_shell_ms': elapsedMs(startedAt) })
  span.addEvent('shell ready')
  stream.once('end', function allReady() {
    span.setAttributes({ 'courier.render.time_to_all_ready_ms': elapsedMs(startedAt) })
    span.addEvent('all ready')
  })
  stream.once('close', function renderDone() {
    // A time-out has said aborted already (respond.ts); a stream cut before its end says it here.
    if (!stream.readableEnded) span.setAttributes({ 'courier.render.aborted': true })
    span.end()
  })
}
