import fp from 'fastify-plugin'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { statusTitle } from '../config/status-titles.ts'
import { assignDigest } from '../src/digest.ts'
import { answersInJson } from '../src/error-format.ts'
import { loggableUrl } from '../src/logger.ts'
import { canRenderDocument, plainErrorDocument, sendDocument } from '../src/render/renderer.ts'

/** Requests answered in JSON when they fail: the API and everything under /_next (data, assets, images). */
function wantsJson(request: FastifyRequest): boolean {
  return answersInJson(request.url)
}

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
 * Answers every failure with the status-title table (DESIGN.md section 7): the error page for HTML requests, JSON for
 * /api and /_next. 5xx answers carry a digest instead of the message; the digest stands in the log line too.
 */
async function sendError(request: FastifyRequest, reply: FastifyReply, statusCode: number, body: ErrorBody) {
  reply.code(statusCode).header('cache-control', 'no-store')
  if (wantsJson(request)) return reply.type('application/json; charset=utf-8').send(body)
  if (!canRenderDocument(reply)) {
    return reply.type('text/html; charset=utf-8').send(plainErrorDocument(statusCode, body.digest))
  }
  try {
    return await sendDocument(reply, { type: 'error', statusCode, ...(body.digest ? { digest: body.digest } : {}) })
  } catch (renderError) {
    // The error page itself failed: log it, then answer in plain HTML so the visitor still gets the status.
    request.log.error({ err: renderError }, 'error page failed to render')
    return reply.type('text/html; charset=utf-8').send(plainErrorDocument(statusCode, body.digest))
  }
}

async function errors(fastify: FastifyInstance) {
  fastify.setErrorHandler(async function handleError(error: FastifyError, request, reply) {
    const statusCode = statusOf(error)
    const title = statusTitle(statusCode)
    if (statusCode >= 500) {
      const { digest, isNew } = assignDigest(error, request.id)
      if (isNew) request.log.error({ err: error, digest }, 'request failed')
      if (reply.sent || reply.raw.headersSent) return
      return sendError(request, reply, statusCode, {
        statusCode,
        code: error.code ?? 'COURIER_ERR_INTERNAL',
        error: title,
        message: title,
        digest,
      })
    }
    request.log.info({ code: error.code, statusCode, reason: loggableReason(error, request.url) }, 'request rejected')
    if (reply.sent || reply.raw.headersSent) return
    return sendError(request, reply, statusCode, {
      statusCode,
      code: error.code ?? `HTTP_${statusCode}`,
      error: title,
      message: error.message || title,
    })
  })

  fastify.setNotFoundHandler(async function handleNotFound(request, reply) {
    const title = statusTitle(404)
    return sendError(request, reply, 404, {
      statusCode: 404,
      code: 'COURIER_ERR_NOT_FOUND',
      error: title,
      message: `${request.method} ${request.url.split('?')[0]} was not found`,
    })
  })
}

export default fp(errors, { name: 'courier-errors', fastify: '5.x' })
