/**
 * A real OTLP/HTTP trace receiver on a loopback port, for the tests: it takes what an OpenTelemetry exporter POSTs to
 * /v1/traces, in either protocol, and keeps the spans. http/protobuf is read with the protobuf wire format
 * (https://protobuf.dev/programming-guides/encoding/) over the field numbers of opentelemetry-proto's
 * collector/trace/v1 and trace/v1 messages; http/json is OTLP's JSON mapping of the same messages.
 */
import type { Test } from 'tap'
export { until } from './until.ts'
import { once } from 'node:events'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'

export type AttributeValue = string | number | boolean | null | AttributeValue[]

export interface ReceivedSpan {
  traceId: string
  spanId: string
  parentSpanId: string
  name: string
  /** 1 internal, 2 server, 3 client (SpanKind). */
  kind: number
  startNs: bigint
  endNs: bigint
  attributes: Record<string, AttributeValue>
  events: Array<{ name: string; attributes: Record<string, AttributeValue> }>
  links: Array<{ traceId: string; spanId: string }>
  /** 0 unset, 1 ok, 2 error (StatusCode). */
  status: { code: number; message: string }
  resource: Record<string, AttributeValue>
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`, what OTEL_EXPORTER_OTLP_ENDPOINT takes. */
  endpoint: string
  spans(): ReceivedSpan[]
  /** Content types of the requests received, in order. */
  contentTypes(): string[]
  close(): Promise<void>
}

// --- the protobuf wire format: a message is a list of (field number, wire type, value) -------------------------

interface Field {
  field: number
  /** varint: bigint; fixed64/fixed32: the raw bytes; length-delimited: the bytes. */
  value: bigint | Buffer
}

function readVarint(bytes: Buffer, at: number): [bigint, number] {
  let result = 0n
  let shift = 0n
  for (;;) {
    const byte = bytes[at++]!
    result |= BigInt(byte & 0x7f) << shift
    if ((byte & 0x80) === 0) return [result, at]
    shift += 7n
  }
}

function fieldsOf(bytes: Buffer): Field[] {
  const fields: Field[] = []
  let at = 0
  while (at < bytes.length) {
    const [key, next] = readVarint(bytes, at)
    at = next
    const field = Number(key >> 3n)
    const wireType = Number(key & 7n)
    if (wireType === 0) {
      const [value, after] = readVarint(bytes, at)
      fields.push({ field, value })
      at = after
    } else if (wireType === 1) {
      fields.push({ field, value: bytes.subarray(at, at + 8) })
      at += 8
    } else if (wireType === 2) {
      const [length, after] = readVarint(bytes, at)
      fields.push({ field, value: bytes.subarray(after, after + Number(length)) })
      at = after + Number(length)
    } else if (wireType === 5) {
      fields.push({ field, value: bytes.subarray(at, at + 4) })
      at += 4
    } else {
      throw new Error(`unexpected protobuf wire type ${wireType}`)
    }
  }
  return fields
}

const all = (fields: Field[], field: number) =>
  fields.filter((entry) => entry.field === field).map((entry) => entry.value)
const bytesOf = (fields: Field[], field: number) => (all(fields, field)[0] as Buffer | undefined) ?? Buffer.alloc(0)
const textOf = (fields: Field[], field: number) => bytesOf(fields, field).toString('utf8')
const numberOf = (fields: Field[], field: number) => Number((all(fields, field)[0] as bigint | undefined) ?? 0n)

/** AnyValue: 1 string, 2 bool, 3 int, 4 double, 5 array. */
function anyValue(bytes: Buffer): AttributeValue {
  const [entry] = fieldsOf(bytes)
  if (!entry) return null
  switch (entry.field) {
    case 1:
      return (entry.value as Buffer).toString('utf8')
    case 2:
      return entry.value === 1n
    case 3:
      return Number(BigInt.asIntN(64, entry.value as bigint))
    case 4:
      return (entry.value as Buffer).readDoubleLE(0)
    case 5:
      return all(fieldsOf(entry.value as Buffer), 1).map((value) => anyValue(value as Buffer))
    default:
      return null
  }
}

/** repeated KeyValue: 1 key, 2 value. */
function attributesOf(values: Array<bigint | Buffer>): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {}
  for (const value of values) {
    const fields = fieldsOf(value as Buffer)
    attributes[textOf(fields, 1)] = anyValue(bytesOf(fields, 2))
  }
  return attributes
}

/** Span: 1 trace_id, 2 span_id, 4 parent_span_id, 5 name, 6 kind, 7/8 times, 9 attributes, 11 events, 13 links, 15 status. */
function spanOf(bytes: Buffer, resource: Record<string, AttributeValue>): ReceivedSpan {
  const fields = fieldsOf(bytes)
  const status = fieldsOf(bytesOf(fields, 15))
  return {
    traceId: bytesOf(fields, 1).toString('hex'),
    spanId: bytesOf(fields, 2).toString('hex'),
    parentSpanId: bytesOf(fields, 4).toString('hex'),
    name: textOf(fields, 5),
    kind: numberOf(fields, 6),
    startNs: bytesOf(fields, 7).readBigUInt64LE(0),
    endNs: bytesOf(fields, 8).readBigUInt64LE(0),
    attributes: attributesOf(all(fields, 9)),
    events: all(fields, 11).map((event) => {
      const eventFields = fieldsOf(event as Buffer)
      return { name: textOf(eventFields, 2), attributes: attributesOf(all(eventFields, 3)) }
    }),
    links: all(fields, 13).map((link) => {
      const linkFields = fieldsOf(link as Buffer)
      return { traceId: bytesOf(linkFields, 1).toString('hex'), spanId: bytesOf(linkFields, 2).toString('hex') }
    }),
    status: { code: numberOf(status, 3), message: textOf(status, 2) },
    resource,
  }
}

/** ExportTraceServiceRequest: 1 resource_spans { 1 resource { 1 attributes }, 2 scope_spans { 2 spans } }. */
function decodeProtobuf(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = []
  for (const resourceSpans of all(fieldsOf(body), 1)) {
    const fields = fieldsOf(resourceSpans as Buffer)
    const resource = attributesOf(all(fieldsOf(bytesOf(fields, 1)), 1))
    for (const scopeSpans of all(fields, 2)) {
      for (const span of all(fieldsOf(scopeSpans as Buffer), 2)) spans.push(spanOf(span as Buffer, resource))
    }
  }
  return spans
}

// --- OTLP/JSON -------------------------------------------------------------------------------------------------

interface JsonAnyValue {
  stringValue?: string
  boolValue?: boolean
  intValue?: number | string
  doubleValue?: number
  arrayValue?: { values?: JsonAnyValue[] }
}
type JsonAttributes = Array<{ key: string; value: JsonAnyValue }> | undefined

function jsonValue(value: JsonAnyValue): AttributeValue {
  if (value.stringValue !== undefined) return value.stringValue
  if (value.boolValue !== undefined) return value.boolValue
  if (value.intValue !== undefined) return Number(value.intValue)
  if (value.doubleValue !== undefined) return value.doubleValue
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(jsonValue)
  return null
}

function jsonAttributes(attributes: JsonAttributes): Record<string, AttributeValue> {
  return Object.fromEntries((attributes ?? []).map(({ key, value }) => [key, jsonValue(value)]))
}

interface JsonSpan {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  startTimeUnixNano: string | number
  endTimeUnixNano: string | number
  attributes?: JsonAttributes
  events?: Array<{ name: string; attributes?: JsonAttributes }>
  links?: Array<{ traceId: string; spanId: string }>
  status?: { code?: number; message?: string }
}

function decodeJson(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString('utf8')) as {
    resourceSpans?: Array<{ resource?: { attributes?: JsonAttributes }; scopeSpans?: Array<{ spans?: JsonSpan[] }> }>
  }
  const spans: ReceivedSpan[] = []
  for (const resourceSpans of request.resourceSpans ?? []) {
    const resource = jsonAttributes(resourceSpans.resource?.attributes)
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          name: span.name,
          kind: span.kind,
          startNs: BigInt(span.startTimeUnixNano),
          endNs: BigInt(span.endTimeUnixNano),
          attributes: jsonAttributes(span.attributes),
          events: (span.events ?? []).map((event) => ({
            name: event.name,
            attributes: jsonAttributes(event.attributes),
          })),
          links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
          status: { code: span.status?.code ?? 0, message: span.status?.message ?? '' },
          resource,
        })
      }
    }
  }
  return spans
}

/** Starts the receiver on a free loopback port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = []
  const contentTypes: string[] = []
  const server = http.createServer(function receive(request, response) {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const type = request.headers['content-type'] ?? ''
      contentTypes.push(type)
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end()
        return
      }
      let body = Buffer.concat(chunks)
      if (request.headers['content-encoding'] === 'gzip') body = gunzipSync(body)
      const json = type.startsWith('application/json')
      spans.push(...(json ? decodeJson(body) : decodeProtobuf(body)))
      // An empty ExportTraceServiceResponse: everything accepted.
      response
        .writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' })
        .end(json ? '{}' : '')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => spans,
    contentTypes: () => contentTypes,
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}

/** A receiver that closes when the test ends. */
export async function otlpReceiverFor(t: Test): Promise<OtlpReceiver> {
  const receiver = await startOtlpReceiver()
  t.teardown(() => receiver.close())
  return receiver
}

/** The `<meta name="traceparent">` a sampled request's document carries: trace id and span id captured. */
export const sampledTraceparentMeta = /<meta name="traceparent" content="00-([0-9a-f]{32})-([0-9a-f]{16})-01">/
