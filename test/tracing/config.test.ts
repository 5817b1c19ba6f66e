import t from 'tap'
import { loadConfig } from '../../config/env.ts'
import { loadTracingConfig } from '../../config/tracing.ts'
import { compileTrustedPeer } from '../../src/tracing/trusted-peer.ts'

t.test('off unless an OTLP endpoint is set, or when OTEL_SDK_DISABLED says so', async (t) => {
  t.equal(loadConfig({}).tracing, undefined, 'off by default')
  t.equal(
    loadTracingConfig({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' }),
    undefined,
    'no endpoint: off',
  )
  t.equal(loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }), undefined, 'blank is unset')
  t.equal(
    loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }),
    undefined,
    'disabled',
  )
  t.ok(loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'false' }), 'not disabled')
})

t.test('the OpenTelemetry defaults, and the traces URL from the base or the signal endpoint', async (t) => {
  t.same(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing, {
    url: 'http://collector:4318/v1/traces',
    protocol: 'http/protobuf',
    serviceName: 'courier',
    sampler: 'parentbased_always_on',
    ratio: 1,
  })
  t.equal(
    loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c.example/otlp/' })?.url,
    'https://c.example/otlp/v1/traces',
  )
  t.equal(
    loadTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c.example/otlp' })?.url,
    'https://c.example/otlp/v1/traces',
  )
  t.equal(
    loadTracingConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:1',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:2/custom',
    })?.url,
    'http://b:2/custom',
    'the signal endpoint is taken as it is, and wins',
  )
  t.match(
    loadTracingConfig({
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:2/v1/traces',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'HTTP/JSON',
      OTEL_SERVICE_NAME: 'shop-front',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
    }),
    { protocol: 'http/json', serviceName: 'shop-front', sampler: 'parentbased_traceidratio', ratio: 0.1 },
  )
  t.equal(
    loadTracingConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:1',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
    })?.protocol,
    'http/json',
    'the signal protocol wins',
  )
  t.equal(
    loadTracingConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:1',
      OTEL_TRACES_SAMPLER: 'always_on',
      OTEL_TRACES_SAMPLER_ARG: 'x',
    })?.ratio,
    1,
    'the argument of a sampler that takes none is ignored',
  )
  t.match(
    loadTracingConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: ' http://a:1 ',
      OTEL_EXPORTER_OTLP_PROTOCOL: ' http/json ',
      OTEL_SERVICE_NAME: ' ',
      OTEL_TRACES_SAMPLER: 'TraceIdRatio',
      OTEL_TRACES_SAMPLER_ARG: '.25',
    }),
    {
      url: 'http://a:1/v1/traces',
      protocol: 'http/json',
      serviceName: 'courier',
      sampler: 'traceidratio',
      ratio: 0.25,
    },
    'values are trimmed, blank is unset, words are read in any case',
  )
  t.equal(
    loadTracingConfig({ OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }),
    undefined,
    'disabled: nothing else is read',
  )
  t.equal(
    loadTracingConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:2/t', OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })
      ?.url,
    'http://b:2/t',
    'the base endpoint is not read when the signal endpoint is set',
  )
})

t.test('a bad value stops start-up (ConfigError, exit 78) naming the variable', async (t) => {
  const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }, /OTEL_EXPORTER_OTLP_ENDPOINT/],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://c/v1/traces' }, /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT/],
    [
      { ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      /OTEL_EXPORTER_OTLP_PROTOCOL must be one of http\/protobuf, http\/json/,
    ],
    [{ ...endpoint, OTEL_TRACES_SAMPLER: 'sometimes' }, /OTEL_TRACES_SAMPLER must be one of/],
    [
      { ...endpoint, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' },
      /OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/,
    ],
    [
      { ...endpoint, OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '-0.1' },
      /OTEL_TRACES_SAMPLER_ARG/,
    ],
    [
      { ...endpoint, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: 'ten percent' },
      /OTEL_TRACES_SAMPLER_ARG/,
    ],
    [{ ...endpoint, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: 'NaN' }, /OTEL_TRACES_SAMPLER_ARG/],
    [{ ...endpoint, OTEL_SDK_DISABLED: 'yes' }, /OTEL_SDK_DISABLED must be one of true, false/],
    [{ ...endpoint, OTEL_SERVICE_NAME: 'x'.repeat(256) }, /OTEL_SERVICE_NAME/],
  ]
  for (const [env, message] of cases) {
    t.throws(() => loadConfig(env), { name: 'ConfigError', message }, JSON.stringify(env).slice(0, 120))
  }
})

t.test('TRUST_PROXY decides whose traceparent is read: the socket peer, never a forwarded address', async (t) => {
  t.equal(compileTrustedPeer(false)('127.0.0.1'), false)
  t.equal(compileTrustedPeer(true)('203.0.113.9'), true)
  t.equal(compileTrustedPeer(1)('203.0.113.9'), true, 'a hop count trusts the closest hop')
  t.equal(compileTrustedPeer(0)('127.0.0.1'), false)
  const list = compileTrustedPeer(['127.0.0.1', '10.0.0.0/8', 'fd00::/8'])
  t.equal(list('127.0.0.1'), true)
  t.equal(list('::ffff:127.0.0.1'), true, 'an IPv4 peer on a dual-stack socket')
  t.equal(list('10.20.30.40'), true)
  t.equal(list('fd12::1'), true)
  t.equal(list('11.0.0.1'), false)
  t.equal(list('::1'), false)
  t.equal(list(undefined), false, 'no address (a closed socket)')
  t.equal(list('garbage'), false)
})
