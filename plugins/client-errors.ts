import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import {
  clientErrorLimits,
  clientErrorSources,
  clientErrorsPath,
  traceparentPattern,
  type ClientErrorReport,
} from '../config/client-errors.ts'
import { digestAttribute } from '../config/tracing.ts'
import { errors } from '../src/errors.ts'
import { loggableUrl } from '../src/logger.ts'
import { registerRateLimits } from '../src/rate-limits.ts'
import { tracingOf } from '../src/tracing/tracing.ts'

const reportSchema = {
  type: 'object',
  required: ['source', 'message', 'url'],
  // Fastify's Ajv drops unknown properties: whatever else a report carries never reaches the log.
  additionalProperties: false,
  properties: {
    source: { type: 'string', enum: clientErrorSources },
    message: { type: 'string', minLength: 1, maxLength: clientErrorLimits.messageMaxLength },
    stack: { type: 'string', maxLength: clientErrorLimits.stackMaxLength },
    url: { type: 'string', minLength: 1, maxLength: clientErrorLimits.urlMaxLength, pattern: '^https?://' },
    digest: { type: 'string', maxLength: clientErrorLimits.digestMaxLength, pattern: '^[A-Za-z0-9_-]+$' },
    traceparent: { type: 'string', maxLength: 55, pattern: traceparentPattern },
  },
} as const

/** Control characters (newlines included) and the Unicode line separators: a report stays one line in any viewer. */
const controlCharacters = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g

function oneLine(text: string): string {
  return text.replace(controlCharacters, ' ')
}

/** Only JSON is taken: a text/plain body (what a bare sendBeacon string sends) is refused, not guessed at. */
async function requireJson(request: FastifyRequest) {
  const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase()
  if (type !== 'application/json') throw new errors.ClientErrorMediaType()
}

/**
 * Logs one report. The report is nested under `clientError` and every field is flattened to one line, so it cannot
 * add or overwrite fields of the log line (level, reqId, msg) nor fake a line of its own in pretty output.
 */
async function logClientError(request: FastifyRequest<{ Body: ClientErrorReport }>, reply: FastifyReply) {
  const report = request.body
  const userAgent = request.headers['user-agent']
  request.log.warn(
    {
      clientError: {
        source: report.source,
        message: oneLine(report.message),
        ...(report.stack ? { stack: oneLine(report.stack) } : {}),
        url: loggableUrl(oneLine(report.url)),
        ...(report.digest ? { digest: report.digest } : {}),
      },
      userAgent: userAgent ? oneLine(userAgent).slice(0, clientErrorLimits.userAgentMaxLength) : undefined,
      // The page's trace: its id as sent by the browser (a well-formed one, never trusted as a parent).
      ...(report.traceparent ? { page_trace_id: report.traceparent.slice(3, 35) } : {}),
    },
    'client error reported',
  )
  const attributes = {
    'courier.client_report.source': report.source,
    ...(report.digest ? { [digestAttribute]: report.digest } : {}),
  }
  tracingOf(request.server)
    .startSpan(request, 'courier.client_report', { attributes, linkedTraceparent: report.traceparent })
    .end()
  return reply.code(204).send()
}

/**
 * POST /api/client-errors: exceptions the browser reports (error boundary, window.onerror, unhandledrejection),
 * validated by schema, size-capped, rate-limited per client and written to the log. 204 when logged; 400 for a bad
 * body, 413 for a big one, 415 for anything but JSON, 429 for a flood; all JSON, by the status-title table.
 */
async function clientErrors(fastify: FastifyInstance) {
  const { maxPerWindow, windowMs } = clientErrorLimits
  // Its own scope: the rate limiter's hooks and decorators stay with this route.
  await fastify.register(async function clientErrorRoute(scope) {
    // With REDIS_URL, one budget per client across instances (plugins/shared-state.ts).
    await registerRateLimits(scope, (after) => new errors.ClientErrorRateLimited(after))
    scope.post(clientErrorsPath, {
      bodyLimit: clientErrorLimits.bodyLimitBytes,
      config: { rateLimit: { max: maxPerWindow, timeWindow: windowMs } },
      schema: { body: reportSchema },
      preValidation: requireJson,
      handler: logClientError,
    })
    scope.methodTable?.allow(clientErrorsPath, ['POST'])
  })
}

export default fp(clientErrors, { name: 'courier-client-errors', fastify: '5.x' })
