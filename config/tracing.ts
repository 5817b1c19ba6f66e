import { blankIsUnset, ConfigError, decimal, EnvValueError, httpUrl, oneOf, readEnv, text } from './env-variables.ts'

/**
 * Traces (docs/operations.md "Traces"): OpenTelemetry, configured by the standard OTEL_* variables
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/), read and checked once here.
 * Off unless an OTLP endpoint is set: then nothing of the SDK is loaded (plugins/tracing.ts imports it lazily).
 */

/** What OTEL_EXPORTER_OTLP_PROTOCOL may say. gRPC is not shipped: it would pull @grpc/grpc-js for one exporter. */
export const tracingProtocols = ['http/protobuf', 'http/json'] as const
export type TracingProtocol = (typeof tracingProtocols)[number]

/** The samplers of OpenTelemetry's OTEL_TRACES_SAMPLER list that need no extra package (no jaeger_remote, no xray). */
export const tracingSamplers = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const
export type TracingSamplerName = (typeof tracingSamplers)[number]

export interface TracingConfig {
  /**
   * Where spans are POSTed: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces.
   */
  readonly url: string
  readonly protocol: TracingProtocol
  readonly serviceName: string
  readonly sampler: TracingSamplerName
  /** The ratio of the traceidratio samplers, 0 to 1. */
  readonly ratio: number
}

export const tracingDefaults = Object.freeze({
  /** The spec's default protocol for OTLP exporters. */
  protocol: 'http/protobuf' as TracingProtocol,
  /** The spec's default is `unknown_service`; a Courier process names itself unless told otherwise. */
  serviceName: 'courier',
  /** The spec's default sampler: follow a trusted parent's decision, sample every root. */
  sampler: 'parentbased_always_on' as TracingSamplerName,
  /** The spec's default ratio when OTEL_TRACES_SAMPLER_ARG is unset for a ratio sampler. */
  ratio: 1,
})

/** The OTLP/HTTP path of traces under a base endpoint (OTLP spec, "OTLP/HTTP Request"). */
const tracesPath = 'v1/traces'

/*
 * The variables are read in the order that decides whether tracing is on; once it is off, nor is anything after read
 * (so none of it can stop start-up). The signal's own variable wins over the one of every OTLP exporter, which is then
 * not read.
 */
const disabled = { OTEL_SDK_DISABLED: blankIsUnset(oneOf(['true', 'false'], 'false', { ignoreCase: true })) }
const signalEndpoint = { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: blankIsUnset(httpUrl()) }
const baseEndpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: blankIsUnset(httpUrl()) }

const signalProtocol = {
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: blankIsUnset(oneOf(tracingProtocols, undefined, { ignoreCase: true })),
}
const baseProtocol = {
  OTEL_EXPORTER_OTLP_PROTOCOL: blankIsUnset(oneOf(tracingProtocols, tracingDefaults.protocol, { ignoreCase: true })),
}

/** The sampler and the service name of a process that traces. */
const settings = {
  OTEL_TRACES_SAMPLER: blankIsUnset(oneOf(tracingSamplers, tracingDefaults.sampler, { ignoreCase: true })),
  /** Bounded: the name goes on the resource of every span sent. */
  OTEL_SERVICE_NAME: blankIsUnset(
    text({
      pattern: { test: /^[\s\S]{1,255}$/, says: 'at most 255 characters' },
      default: tracingDefaults.serviceName,
    }),
  ),
}

/** The argument of the ratio samplers only: another sampler's is ignored, whatever it says. */
const ratioArgument = {
  OTEL_TRACES_SAMPLER_ARG: blankIsUnset(decimal({ minimum: 0, maximum: 1, default: tracingDefaults.ratio })),
}

/** The signal endpoint as given, else the base endpoint with the traces path appended. */
function tracesUrl(env: NodeJS.ProcessEnv): string | undefined {
  const signal = readEnv(signalEndpoint, env).OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
  if (signal) return signal.href
  const base = readEnv(baseEndpoint, env).OTEL_EXPORTER_OTLP_ENDPOINT
  if (!base) return undefined
  return new URL(base.pathname.endsWith('/') ? tracesPath : `${base.pathname}/${tracesPath}`, base).href
}

/**
 * The tracing configuration, or undefined when tracing is off: no endpoint set, or OTEL_SDK_DISABLED=true. A bad
 * value throws a ConfigError naming the variable (start-up stops with exit code 78, like any bad environment).
 */
export function loadTracingConfig(env: NodeJS.ProcessEnv): TracingConfig | undefined {
  try {
    if (readEnv(disabled, env).OTEL_SDK_DISABLED === 'true') return undefined
    const url = tracesUrl(env)
    if (url === undefined) return undefined
    const set = readEnv(settings, env)
    const sampler = set.OTEL_TRACES_SAMPLER
    const ratio = sampler.endsWith('traceidratio')
      ? readEnv(ratioArgument, env).OTEL_TRACES_SAMPLER_ARG
      : tracingDefaults.ratio
    const protocol =
      readEnv(signalProtocol, env).OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
      readEnv(baseProtocol, env).OTEL_EXPORTER_OTLP_PROTOCOL
    return Object.freeze({ url, protocol, serviceName: set.OTEL_SERVICE_NAME, sampler, ratio })
  } catch (error) {
    if (error instanceof EnvValueError) throw new ConfigError(`invalid environment: ${error.message}`)
    throw error
  }
}

/**
 * How long closing waits for the last spans to leave: well inside the 10 s shutdown grace period
 * (config/server.ts), so a collector that is gone never turns a clean exit into a timed-out one.
 */
export const tracingShutdownFlushMs = 2_000

/** The span attribute that carries an error's digest, the one the user was shown and the log line holds. */
export const digestAttribute = 'courier.digest'

/** The span attribute of the deployment that answered (one per build: docs/rendering.md "Deployment id"). */
export const deploymentIdAttribute = 'courier.deployment_id'

/**
 * Paths no span is made for: the probes a load balancer or Kubernetes polls every few seconds per instance, which
 * would outnumber every other trace and say nothing about a visitor's request (their access lines stay).
 */
export const untracedPaths: readonly string[] = Object.freeze(['/api/health', '/api/ready'])
