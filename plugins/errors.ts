import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { statusTitle } from '../config/status-titles.ts'
import { assignDigest } from '../src/digest.ts'
import { answersInJson } from '../src/error-format.ts'
import { loggableUrl } from '../src/logger.ts'
import { errorCode, errors as courierErrors } from '../src/errors.ts'
import { plainErrorDocument } from '../src/render/error-documents.ts'
import { tracingOf } from '../src/tracing/tracing.ts'

/** Requests answered in JSON when they fail: the API and everything under /_next (data, assets, images). */
function wantsJson(request: FastifyRequest): boolean {
  return answersInJson(request.url)
}

const internalCode = errorCode(courierErrors.Internal)

/** Fastify's own failures that mean "no such page" for a visitor. */
const notFoundCodes = new Set(['FST_ERR_MAX_PARAM_LENGTH'])

/** The message as logged: one that quotes the request URL (a malformed escape) quotes it as the access line does. */
function loggableReason(error: FastifyError, url: string): string {
  return error.message.includes(url) ? error.message.split(url).join(loggableUrl(url)) : error.message
}

function statusOf(error: FastifyError): number {
  if (error.code && notFoundCodes.has(error.code)) return 404
  const status = error.statusCode ?? 500
  return status >= 400 && status <= 599 ? status : 500
}

interface ErrorBody {
  statusCode: number
  code: string
  error: string
  message: string
  digest?: string
}

/**
 * Answers every failure with the status-title table (docs/errors.md): the error page for HTML requests, JSON for
 * /api and /_next. 5xx answers carry a digest instead of the message; the digest stands in the log line too.
 */
async function sendError(request: FastifyRequest, reply: FastifyReply, statusCode: number, body: ErrorBody) {
  reply.code(statusCode).header('cache-control', 'no-store')
  if (wantsJson(request)) return reply.type('application/json; charset=utf-8').send(body)
  try {
    const target = { type: 'error', statusCode, ...(body.digest ? { digest: body.digest } : {}) } as const
    return await request.server.renderDocument(request, reply, { type: 'whole', target })
  } catch (renderError) {
    // The error page itself failed: log it, then answer in plain HTML so the visitor still gets the status.
    request.log.error({ err: renderError }, 'error page failed to render')
    return reply.type('text/html; charset=utf-8').send(plainErrorDocument(statusCode, body.digest))
  }
}

/** What an answer decided outside a route says: a code of the table (src/errors.ts) and its message. */
export interface CodedAnswer {
  code: string
  message: string
}

/** A failure as the table answers it: its status, its code and what it says (4xx only: 5xx say their title). */
interface Failure {
  statusCode: number
  code: string | undefined
  message: string
  /** The message as logged (a URL quoted in it is redacted like the access line's). */
  reason: string
  /** What a 5xx log line carries. */
  error: FastifyError | undefined
}

async function answerFailure(request: FastifyRequest, reply: FastifyReply, failure: Failure) {
  const { statusCode } = failure
  const title = statusTitle(statusCode)
  if (statusCode >= 500) {
    const { digest, isNew } = assignDigest(failure.error ?? new Error(failure.message), request.id)
    if (isNew) request.log.error({ err: failure.error, digest }, 'request failed')
    tracingOf(request.server).requestFailed(request, failure.error ?? new Error(failure.message), digest)
    if (reply.sent || reply.raw.headersSent) return
    return sendError(request, reply, statusCode, {
      statusCode,
      code: failure.code ?? internalCode,
      error: title,
      message: title,
      digest,
    })
  }
  request.log.info({ code: failure.code, statusCode, reason: failure.reason }, 'request rejected')
  if (reply.sent || reply.raw.headersSent) return
  return sendError(request, reply, statusCode, {
    statusCode,
    code: failure.code ?? `HTTP_${statusCode}`,
    error: title,
    message: failure.message || title,
  })
}

async function errors(fastify: FastifyInstance) {
  fastify.setErrorHandler(async function handleError(error: FastifyError, request, reply) {
    const statusCode = statusOf(error)
    const reason = loggableReason(error, request.url)
    return answerFailure(request, reply, { statusCode, code: error.code, message: error.message, reason, error })
  })

  fastify.decorate(
    'answerWithStatus',
    function answerWithStatus(request: FastifyRequest, reply: FastifyReply, statusCode: number, answer: CodedAnswer) {
      const { code, message } = answer
      return answerFailure(request, reply, { statusCode, code, message, reason: message, error: undefined })
    },
  )

  fastify.setNotFoundHandler(async function handleNotFound(request, reply) {
    // A GET or HEAD on a path of the method table that takes neither (plugins/method-not-allowed.ts answers other
    // methods at onRequest, before their body is read): 405. Here, since these have no body to read and a route may
    // pass them on: the public files' wildcard route takes a GET its index of the folder is not sure of
    // (`/api/client-errors/`, or any before the index is ready) and finds no file.
    const refusal = fastify.methodTable?.refusal(request, reply)
    if (refusal) throw refusal
    const notFound = new courierErrors.NotFound(request.method, request.url.split('?')[0])
    return sendError(request, reply, 404, {
      statusCode: 404,
      code: notFound.code,
      error: statusTitle(404),
      message: notFound.message,
    })
  })
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Answers a request with a status of the table and a code, as a thrown error with them would be answered (the
     * error page or JSON, the log line): for answers decided outside a route, such as a site step of the request
     * filter.
     */
    answerWithStatus(
      request: FastifyRequest,
      reply: FastifyReply,
      statusCode: number,
      answer: CodedAnswer,
    ): Promise<unknown>
  }
}

export default fp(errors, { name: 'courier-errors', fastify: '5.x' })
