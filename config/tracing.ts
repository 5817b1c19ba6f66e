import { ConfigError } from './env.ts'

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
  /** Where spans are POSTed: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
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

/** Blank counts as unset, as OpenTelemetry's specification says of every OTEL_* variable. */
function read(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim()
  return value ? value : undefined
}

function parseUrl(name: string, value: string): URL {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ConfigError(`invalid environment: ${name} must be an http(s) URL (got ${JSON.stringify(value)})`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`invalid environment: ${name} must be an http(s) URL (got ${JSON.stringify(value)})`)
  }
  return url
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  const lower = value.toLowerCase()
  const found = allowed.find((entry) => entry === lower)
  if (found === undefined) {
    throw new ConfigError(`invalid environment: ${name} must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`)
  }
  return found
}

function tracesUrl(env: NodeJS.ProcessEnv): string | undefined {
  const signal = read(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')
  if (signal !== undefined) return parseUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', signal).href
  const base = read(env, 'OTEL_EXPORTER_OTLP_ENDPOINT')
  if (base === undefined) return undefined
  const url = parseUrl('OTEL_EXPORTER_OTLP_ENDPOINT', base)
  return new URL(url.pathname.endsWith('/') ? tracesPath : `${url.pathname}/${tracesPath}`, url).href
}

function parseRatio(sampler: TracingSamplerName, env: NodeJS.ProcessEnv): number {
  const value = read(env, 'OTEL_TRACES_SAMPLER_ARG')
  if (!sampler.endsWith('traceidratio') || value === undefined) return tracingDefaults.ratio
  const ratio = Number(value)
  if (!/^\d*\.?\d+(?:e-?\d+)?$/i.test(value) || !(ratio >= 0 && ratio <= 1)) {
    throw new ConfigError(`invalid environment: OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1 for ${sampler} (got ${JSON.stringify(value)})`)
  }
  return ratio
}

/**
 * The tracing configuration, or undefined when tracing is off: no endpoint set, or OTEL_SDK_DISABLED=true. A bad
 * value throws a ConfigError naming the variable (start-up stops with exit code 78, like any bad environment).
 */
export function loadTracingConfig(env: NodeJS.ProcessEnv): TracingConfig | undefined {
  const disabled = read(env, 'OTEL_SDK_DISABLED')
  if (disabled !== undefined && oneOf('OTEL_SDK_DISABLED', disabled, ['true', 'false']) === 'true') return undefined
  const url = tracesUrl(env)
  if (url === undefined) return undefined
  const protocolName = read(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') !== undefined
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL'
  const protocolValue = read(env, protocolName)
  const protocol = protocolValue === undefined ? tracingDefaults.protocol : oneOf(protocolName, protocolValue, tracingProtocols)
  const samplerValue = read(env, 'OTEL_TRACES_SAMPLER')
  const sampler = samplerValue === undefined ? tracingDefaults.sampler : oneOf('OTEL_TRACES_SAMPLER', samplerValue, tracingSamplers)
  const serviceName = read(env, 'OTEL_SERVICE_NAME') ?? tracingDefaults.serviceName
  if (serviceName.length > 255) {
    throw new ConfigError('invalid environment: OTEL_SERVICE_NAME must be at most 255 characters')
  }
  return Object.freeze({ url, protocol, serviceName, sampler, ratio: parseRatio(sampler, env) })
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
