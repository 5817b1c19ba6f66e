import { FastifyOtelInstrumentation } from '@fastify/otel'
import { context, diag, DiagLogLevel, propagation, trace, type DiagLogFunction, type Span } from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources'
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-node'
import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import type { TracingConfig } from '../../config/tracing.ts'
import type { IgnoreCall } from './door-sampler.ts'

/** The SDK as the tracing plugin uses it: loaded only when tracing is on (plugins/tracing.ts imports this lazily). */
export interface TracingSdk {
  /** @fastify/otel, bound to Courier's provider: the request span of every route. */
  fastifyOtel: FastifyOtelInstrumentation
  tracer: ReturnType<NodeTracerProvider['getTracer']>
  /** Sends what is queued and stops: the last spans leave before the process exits. */
  shutdown(): Promise<void>
}

export interface SdkOptions {
  /** Called with each request span as it starts (names it, adds Courier's attributes). */
  requestHook: (span: Span, request: FastifyRequest) => void
  /** @fastify/otel's `ignorePaths`: true for a route or request it must leave alone (src/tracing/door-sampler.ts). */
  ignores: (call: IgnoreCall) => boolean
  /** Where the SDK's own problems go (an export that failed: the collector is away or refuses). */
  log: FastifyBaseLogger
}

/** The SDK's diagnostics at warn level and above as Courier's warn lines; the details are the SDK's, cut short. */
function reportTo(log: FastifyBaseLogger): DiagLogFunction {
  return function reportProblem(message, ...args) {
    const detail = [message, ...args.map((arg) => (arg instanceof Error ? arg.message : String(arg)))].join(' ')
    log.warn({ detail: detail.slice(0, 500) }, 'tracing: OpenTelemetry reported a problem')
  }
}

/**
 * The SDK's sampler. Roots reach it only when the door sampled them (src/tracing/door-sampler.ts), so it samples every
 * root; a request continuing a trusted peer's trace, and Courier's spans under a request's, are decided as
 * OTEL_TRACES_SAMPLER says: the parent's flag for the parent-based samplers, the trace id for `traceidratio`, all or
 * nothing for `always_on` and `always_off`.
 */
function samplerOf(config: TracingConfig): Sampler {
  const root = new AlwaysOnSampler()
  switch (config.sampler) {
    case 'always_on':
      return new AlwaysOnSampler()
    case 'always_off':
      return new AlwaysOffSampler()
    case 'traceidratio': {
      const byTraceId = new TraceIdRatioBasedSampler(config.ratio)
      return new ParentBasedSampler({ root, remoteParentSampled: byTraceId, remoteParentNotSampled: byTraceId })
    }
    case 'parentbased_always_on':
    case 'parentbased_always_off':
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root })
  }
}

/** The exporter of the protocol asked for: only that one package is loaded. */
async function exporterOf(config: TracingConfig): Promise<SpanExporter> {
  if (config.protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http')
    return new OTLPTraceExporter({ url: config.url })
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto')
  return new OTLPTraceExporter({ url: config.url })
}

/**
 * Starts the OpenTelemetry SDK for this process: a tracer provider with the configured sampler and a batch processor
 * (bounded queue: spans are dropped, never piled up, while the collector is away) exporting over OTLP/HTTP; the W3C
 * trace-context propagator only (no baggage taken from anyone); and @fastify/otel for the request spans.
 *
 * No context manager: every span of Courier's names its parent (src/tracing/request-tracing.ts), so nothing needs an
 * "active" span carried across awaits. `context.with` is then a plain call and `context.active()` the root context;
 * the AsyncLocalStorage context manager would enter a context for every request, sampled or not, which Node 20's
 * async hooks carry into every promise the request makes (docs/performance.md "No context manager"). Outgoing requests
 * (remote images) carry `traceparent` because src/images/optimizer.ts injects their span's, not because an
 * instrumentation finds it.
 */
export async function startTracingSdk(config: TracingConfig, options: SdkOptions): Promise<TracingSdk> {
  const detected = detectResources({ detectors: [envDetector] })
  const resource = detected.merge(resourceFromAttributes({ 'service.name': config.serviceName }))
  const provider = new NodeTracerProvider({
    resource,
    sampler: samplerOf(config),
    spanProcessors: [new BatchSpanProcessor(await exporterOf(config))],
  })
  // null: no context manager at all (undefined would install the AsyncLocalStorage one).
  provider.register({ contextManager: null, propagator: new W3CTraceContextPropagator() })
  const report = reportTo(options.log)
  const ignore: DiagLogFunction = () => {}
  diag.setLogger({ error: report, warn: report, info: ignore, debug: ignore, verbose: ignore }, DiagLogLevel.WARN)

  const fastifyOtel = new FastifyOtelInstrumentation({
    // Courier's own spans say what each step did; a span per hook would only add noise and cost.
    instrumentHooks: false,
    instrumentHandler: false,
    // The error handler records 5xx failures with their digest (plugins/errors.ts): one exception event, not two.
    recordExceptions: false,
    requestHook: options.requestHook,
    ignorePaths: options.ignores,
  })
  fastifyOtel.setTracerProvider(provider)

  return {
    fastifyOtel,
    tracer: provider.getTracer('courier'),
    async shutdown() {
      fastifyOtel.disable()
      await provider.shutdown()
      trace.disable()
      context.disable()
      propagation.disable()
      diag.disable()
    },
  }
}
