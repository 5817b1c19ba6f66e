import fp from 'fastify-plugin'
import type { Span } from '@opentelemetry/api'
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import type { TrustProxy } from '../config/env.ts'
import { deploymentIdAttribute, tracingShutdownFlushMs, untracedPaths, type TracingConfig } from '../config/tracing.ts'
import { withTimeOut } from '../src/toolbox/time-out.ts'
import { tracingOff } from '../src/tracing/tracing.ts'
import { pathOf } from '../src/request-path.ts'
import { routeTemplate } from '../src/route-template.ts'

export interface TracingOptions {
  /** The OTEL_* configuration (config/tracing.ts); undefined: tracing off, and nothing of OpenTelemetry is loaded. */
  config: TracingConfig | undefined
  /** TRUST_PROXY: only a trusted peer's `traceparent` continues a trace. */
  trustProxy: TrustProxy
}

/**
 * A sampled request's log lines, the access line included, carry its trace and span ids. Its logger is its own
 * (Fastify makes one per request, for its `reqId`; the reply logs with the same one): the ids are added to it in
 * place, with pino's `setBindings`, instead of through a child of it: a child logger per sampled request cost
 * about 20 µs of CPU (docs/performance.md "Fewer spans and no child logger per sampled request"). A request that
 * shares the instance's logger (an instance without a logger, which writes nothing) gets a child, so the instance's
 * own logger is never changed.
 */
function bindTraceToLogs(fastify: FastifyInstance, request: FastifyRequest, span: Span): void {
  const { traceId, spanId } = span.spanContext()
  const bindings = { trace_id: traceId, span_id: spanId }
  const log = request.log as FastifyBaseLogger & { setBindings?: (bindings: Record<string, string>) => void }
  if (log !== fastify.log && typeof log.setBindings === 'function') log.setBindings(bindings)
  else request.log = log.child(bindings)
}

/**
 * Traces (docs/operations.md "Traces"). Off, it only decorates `fastify.tracing` with calls that do nothing.
 * On, it starts the OpenTelemetry SDK (imported here, lazily) and @fastify/otel, which makes each request's span:
 * named `<method> <route>` after the HTTP semantic conventions, continuing the trace of an incoming `traceparent` only
 * when the peer is a proxy TRUST_PROXY trusts, and binding `trace_id` and `span_id` to every log line of a sampled
 * request. Registered before every other plugin, so its hooks run first and every route gets its span.
 */
async function tracing(fastify: FastifyInstance, options: TracingOptions) {
  const { config, trustProxy } = options
  if (!config) {
    fastify.decorate('tracing', tracingOff)
    return
  }
  const [sdkModule, requestTracingModule, trustModule, doorModule] = await Promise.all([
    import('../src/tracing/sdk.ts'),
    import('../src/tracing/request-tracing.ts'),
    import('../src/tracing/trusted-peer.ts'),
    import('../src/tracing/door-sampler.ts'),
  ])
  const deploymentId = fastify.deploymentId
  const isTrustedPeer = trustModule.compileTrustedPeer(trustProxy)
  const untraced = new Set(untracedPaths)
  const isUntraced = (url: string) => untraced.has(pathOf(url))
  const sampleRoot = doorModule.rootSampler(config)
  const door = new doorModule.DoorDecision()

  const sdk = await sdkModule.startTracingSdk(config, {
    log: fastify.log,
    ignores: (call) => door.ignores(call, isUntraced),
    requestHook: function nameRequestSpan(span, request) {
      request.traceSpan = span
      // A request not sampled records nothing: nothing to name, no ids to log.
      if (!span.isRecording()) return
      const route = request.routeOptions.url
      span.updateName(route ? `${request.method} ${route}` : request.method)
      // url.path without the query: a query can hold secrets (the log redacts them; a span attribute would not).
      span.setAttributes({
        'url.path': pathOf(request.url),
        'url.scheme': request.protocol,
        [deploymentIdAttribute]: deploymentId,
      })
      bindTraceToLogs(fastify, request, span)
    },
  })
  fastify.addHook('onClose', async function flushSpans() {
    const late = () => new Error(`spans not sent within ${tracingShutdownFlushMs} ms`)
    await withTimeOut(sdk.shutdown(), tracingShutdownFlushMs, late).catch((error: unknown) => {
      fastify.log.warn({ err: error, waitedMs: tracingShutdownFlushMs }, 'tracing: spans not sent before closing')
    })
  })

  fastify.decorateRequest('traceSpan', undefined)
  fastify.decorate('tracing', requestTracingModule.createRequestTracing(sdk.tracer, sampleRoot))

  // Before @fastify/otel's own hook, which continues the trace of the request's `traceparent` header (there is no
  // active span for it to prefer: src/tracing/sdk.ts registers no context manager). An untrusted peer's traceparent
  // (a visitor's, or anything in front of a proxy that is not trusted) is removed from the request's headers before
  // that hook reads them: it could pin trace ids, force sampling or fill a collector; the request starts a new trace.
  // A new trace is sampled or not here, at the door (src/tracing/door-sampler.ts); one that continues a trusted
  // peer's is left to the SDK's sampler.
  fastify.addHook(
    'onRequest',
    function sampleAtTheDoor(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
      // The raw headers: `request.headers` is the same object, or a copy of them made at each read.
      const headers = request.raw.headers
      // Most requests carry neither: two reads, and the peer is judged only for those that do.
      if (
        (headers.traceparent !== undefined || headers.tracestate !== undefined) &&
        !isTrustedPeer(request.socket.remoteAddress)
      ) {
        delete headers.traceparent
        delete headers.tracestate
      }
      door.admit(request.url, headers.traceparent !== undefined || sampleRoot())
      done()
    },
  )
  // Right after the door: @fastify/otel's request hook reads the door's decision (and forgets it) in the same turn.
  await fastify.register(sdk.fastifyOtel.plugin())
  // A path no route of its own takes, which the public folder's index does not know missing, reaches the public
  // files' wildcard route (`/*`, plugins/public-files.ts) and, naming no file, the not-found handler: its span is named
  // by the method alone, as a path no route matched. A 405 of the method table (src/method-not-allowed.ts) reached no
  // route either: its span is named by the path's route template, as the route it was refused on.
  fastify.addHook('onSend', function nameNotFoundSpan(request: FastifyRequest, _reply, payload: unknown, done) {
    const span = request.traceSpan
    if (request.routeOptions.url === undefined && span?.isRecording()) {
      const route = routeTemplate(request)
      span.updateName(route ? `${request.method} ${route}` : request.method)
    }
    done(null, payload)
  })

  // The endpoint as logged: no credentials a URL may carry.
  const endpoint = new URL(config.url)
  endpoint.username = ''
  endpoint.password = ''
  fastify.log.info(
    { url: endpoint.href, protocol: config.protocol, sampler: config.sampler, ratio: config.ratio },
    'tracing on',
  )
}

export default fp(tracing, { name: 'courier-tracing', fastify: '5.x', dependencies: ['courier-deployment-id'] })
