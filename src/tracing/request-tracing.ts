import {
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Link,
  type Span,
  type Tracer,
} from '@opentelemetry/api'
import type { FastifyRequest } from 'fastify'
import { escapeHtml } from '../render/template.ts'
import { digestAttribute } from '../../config/tracing.ts'
import { noSpan, type SpanOptions, type SpanParent, type TraceSpan, type Tracing } from './tracing.ts'

/** A `traceparent` header value: version 00, trace id, parent id, flags (W3C Trace Context, section 3.2). */
const traceparentPattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/** The `traceparent` of a span context. */
export function traceparentOf(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext()
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`
}

/** A link to the span a `traceparent` names, if it is a well-formed one with valid ids. */
function linkOf(traceparent: string | undefined): Link[] | undefined {
  const match = traceparent === undefined ? null : traceparentPattern.exec(traceparent)
  if (!match) return undefined
  const spanContext = {
    traceId: match[1]!,
    spanId: match[2]!,
    traceFlags: Number.parseInt(match[3]!, 16) & TraceFlags.SAMPLED,
    isRemote: true,
  }
  return isSpanContextValid(spanContext) ? [{ context: spanContext }] : undefined
}

/** Courier's span over an OpenTelemetry one. */
class RecordingSpan implements TraceSpan {
  readonly #span: Span

  constructor(span: Span) {
    this.#span = span
  }

  get span(): Span {
    return this.#span
  }

  setAttributes(attributes: Record<string, string | number | boolean>): void {
    this.#span.setAttributes(attributes)
  }

  addEvent(name: string, attributes?: Record<string, string | number | boolean>): void {
    this.#span.addEvent(name, attributes)
  }

  injectInto(headers: Record<string, string>): void {
    // The registered propagator: W3C trace context only (src/tracing/sdk.ts).
    propagation.inject(trace.setSpan(ROOT_CONTEXT, this.#span), headers)
  }

  fail(error: unknown, digest: string | undefined): void {
    recordFailure(this.#span, error, digest)
  }

  end(endTime?: number): void {
    this.#span.end(endTime)
  }
}

function recordFailure(span: Span, error: unknown, digest: string | undefined): void {
  const exception = error instanceof Error ? error : new Error(String(error))
  span.recordException(exception)
  span.setStatus({ code: SpanStatusCode.ERROR, message: exception.message })
  if (digest !== undefined) span.setAttribute(digestAttribute, digest)
}

/**
 * Tracing on: Courier's spans as children of the parent each caller names, a request (the request span @fastify/otel
 * started, kept on the request by plugins/tracing.ts) or one of Courier's spans. There is no async context: nothing
 * is "active", a parent is passed. A request that is not sampled costs one check per call: its children would not be
 * sampled either. Work of no request starts a trace of its own when `sampleRoot` (the door's rule,
 * src/tracing/door-sampler.ts) says so.
 */
export function createRequestTracing(tracer: Tracer, sampleRoot: () => boolean): Tracing {
  /** The OpenTelemetry span of a request or of a span of Courier's, when it is recorded (a child can go under it). */
  function parentOf(parent: SpanParent): Span | undefined {
    if (parent === undefined || parent === noSpan) return undefined
    const span = parent instanceof RecordingSpan ? parent.span : (parent as FastifyRequest).traceSpan
    return span?.isRecording() ? span : undefined
  }

  /** A span under `parent`, or the root of a new trace. */
  function start(parent: Span | undefined, name: string, options: SpanOptions | undefined): RecordingSpan {
    const links = linkOf(options?.linkedTraceparent)
    const span = tracer.startSpan(
      name,
      {
        kind: options?.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL,
        ...(options?.attributes ? { attributes: options.attributes } : {}),
        ...(links ? { links } : {}),
        ...(options?.startTime !== undefined ? { startTime: options.startTime } : {}),
      },
      parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT,
    )
    return new RecordingSpan(span)
  }

  async function runInSpan<T>(handle: RecordingSpan, work: (span: TraceSpan) => Promise<T>): Promise<T> {
    try {
      return await work(handle)
    } catch (error) {
      // The digest comes later, from the error handler, onto the request span (requestFailed).
      handle.fail(error, undefined)
      throw error
    } finally {
      handle.end()
    }
  }

  return Object.freeze({
    enabled: true,
    startSpan(parent, name, options) {
      const span = parentOf(parent)
      return span ? start(span, name, options) : noSpan
    },
    inSpan(parent, name, options, work) {
      const span = parentOf(parent)
      return span ? runInSpan(start(span, name, options), work) : work(noSpan)
    },
    startRootSpan(name, options) {
      return sampleRoot() ? start(undefined, name, options) : noSpan
    },
    isRecording(on) {
      return parentOf(on) !== undefined
    },
    setAttributes(on, attributes) {
      parentOf(on)?.setAttributes(attributes)
    },
    requestFailed(request, error, digest) {
      const span = request.traceSpan
      if (span?.isRecording()) recordFailure(span, error, digest)
    },
    documentMeta(request) {
      const span = request.traceSpan
      if (!span?.isRecording()) return ''
      return `<meta name="traceparent" content="${escapeHtml(traceparentOf(span))}">`
    },
  } satisfies Tracing)
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's span (@fastify/otel's), set when tracing is on (plugins/tracing.ts). */
    traceSpan: Span | undefined
  }
}
