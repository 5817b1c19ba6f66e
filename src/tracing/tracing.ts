import type { FastifyInstance, FastifyRequest } from 'fastify'

/**
 * What Courier's code asks of tracing (docs/operations.md "Traces"). This module imports nothing of
 * OpenTelemetry: with tracing off, `fastify.tracing` is `tracingOff` below, whose calls do nothing, and no
 * @opentelemetry module is ever loaded. With tracing on, plugins/tracing.ts decorates the real one
 * (src/tracing/request-tracing.ts).
 */

export type SpanAttributes = Readonly<Record<string, string | number | boolean>>

/** A span as Courier's code uses it. */
export interface TraceSpan {
  setAttributes(attributes: SpanAttributes): void
  addEvent(name: string, attributes?: SpanAttributes): void
  /**
   * Adds the span's W3C `traceparent` (and `tracestate`) to the headers of a request to another service, so its
   * spans join the trace under this one. A span that is not recorded adds nothing.
   */
  injectInto(headers: Record<string, string>): void
  /**
   * Records a failure on the span: the exception, status ERROR, and the digest the user was shown (`courier.digest`).
   */
  fail(error: unknown, digest: string | undefined): void
  /** Ends the span: now, or at `endTime` on `performance.now()`'s clock (a span made once its work has ended). */
  end(endTime?: number): void
}

/**
 * What a span is started under: a request (its request span), or a span of Courier's own (work a step does inside
 * its span: the page loader in page data, an image's fetch and transform). There is no implicit "active" span: a
 * caller names the parent. Undefined (work of no request, such as a background refresh): no span.
 */
export type SpanParent = FastifyRequest | TraceSpan | undefined

export interface SpanOptions {
  /** `client` for a request to another service (an image fetch); `internal` otherwise. */
  kind?: 'internal' | 'client'
  attributes?: SpanAttributes
  /** A `traceparent` the span links to without joining its trace (a client report's page). */
  linkedTraceparent?: string | undefined
  /** When the work began, on `performance.now()`'s clock, for a span made once its work has ended; default now. */
  startTime?: number
}

export interface Tracing {
  readonly enabled: boolean
  /**
   * Starts a span, child of `parent` (a request's span, or a span of Courier's); `noSpan` when the parent is not
   * recorded (tracing off, a request not sampled, no parent at all). The caller ends it.
   */
  startSpan(parent: SpanParent, name: string, options?: SpanOptions): TraceSpan
  /**
   * Runs `work` with a span child of `parent`, handed to it (spans of work done inside name it as their parent); the
   * span ends when `work` settles, failed when it throws.
   */
  inSpan<T>(
    parent: SpanParent,
    name: string,
    options: SpanOptions | undefined,
    work: (span: TraceSpan) => Promise<T>,
  ): Promise<T>
  /**
   * Starts a span of work no request waits for (a kept page regenerated): the root of a trace of its own, sampled by
   * the rule OTEL_TRACES_SAMPLER gives new traces, as a request's is at the door; `noSpan` when it is not sampled or
   * tracing is off. The caller ends it.
   */
  startRootSpan(name: string, options?: SpanOptions): TraceSpan
  /**
   * Whether `on` (a request's own span, or a span of Courier's) is recorded: the one check a step makes before it
   * does any work for tracing (timing itself, building attributes). False with tracing off or a request not sampled.
   */
  isRecording(on: SpanParent): boolean
  /**
   * Adds attributes to a request's own span or to a span of Courier's: what a step did, where no span of its own is
   * worth its cost (docs/operations.md "Traces"). Nothing when it is not recorded.
   */
  setAttributes(on: SpanParent, attributes: SpanAttributes): void
  /** Records a failed request (a 5xx) on its request span, with the digest the user was shown. */
  requestFailed(request: FastifyRequest, error: unknown, digest: string): void
  /** The `<meta name="traceparent">` of the request's span for its document; '' when the request is not sampled. */
  documentMeta(request: FastifyRequest): string
}

/** The span of work that is not traced: every call does nothing. */
export const noSpan: TraceSpan = Object.freeze({
  setAttributes() {},
  addEvent() {},
  injectInto() {},
  fail() {},
  end() {},
})

/** Tracing off: every call does nothing. */
export const tracingOff: Tracing = Object.freeze({
  enabled: false,
  startSpan: () => noSpan,
  inSpan: <T>(
    _parent: SpanParent,
    _name: string,
    _options: SpanOptions | undefined,
    work: (span: TraceSpan) => Promise<T>,
  ) => work(noSpan),
  startRootSpan: () => noSpan,
  isRecording: () => false,
  setAttributes() {},
  requestFailed() {},
  documentMeta: () => '',
})

/** The instance's tracing; off on an instance without plugins/tracing.ts (a plugin registered alone in a test). */
export function tracingOf(fastify: FastifyInstance): Tracing {
  return fastify.hasDecorator('tracing') ? fastify.tracing : tracingOff
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Spans for Courier's own steps (plugins/tracing.ts); does nothing with tracing off. */
    tracing: Tracing
  }
}
