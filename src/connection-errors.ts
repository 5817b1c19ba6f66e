import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import type { PlainErrorAnswers } from './error-format.ts'
import { errorCode, errors } from './errors.ts'
import { nodeHttp } from './runtime/node-http.ts'

/**
 * Requests Node's HTTP parser rejects before Fastify sees them (oversized headers, malformed requests, header
 * time-outs). Fastify's default answer is JSON with Node's status texts; Courier's follows the status-title table
 * like every other error: JSON for /api and /_next, the plain error page otherwise, never stored. The connection is
 * closed afterwards, as Node does: the parser cannot tell where the next request would start.
 */
const statusByCode: Readonly<Record<string, number>> = {
  HPE_HEADER_OVERFLOW: 431,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
}

const codeByStatus: Readonly<Record<number, string>> = {
  431: errorCode(errors.HeaderTooLarge),
  408: errorCode(errors.RequestTimeout),
  400: errorCode(errors.BadRequest),
  405: errorCode(errors.MethodNotAllowed),
}

/** The path of the request line, when the bytes Node kept start with one (best effort: they may not). */
function requestPath(rawPacket: unknown): string | undefined {
  if (!Buffer.isBuffer(rawPacket)) return undefined
  const line = /^[A-Z]{3,10} (\/\S{0,2048}) HTTP\//.exec(rawPacket.subarray(0, 2100).toString('latin1'))
  return line?.[1]
}

function connectionErrorResponse(answers: PlainErrorAnswers, statusCode: number, path: string | undefined): string {
  // Without a readable path the answer is the HTML page (the JSON form is for /api and /_next).
  const answer = answers.answer(path ?? '/', statusCode, codeByStatus[statusCode] ?? errorCode(errors.BadRequest))
  return (
    `HTTP/1.1 ${statusCode} ${nodeHttp.STATUS_CODES[statusCode]}\r\n` +
    `Content-Type: ${answer.contentType}\r\n` +
    `Content-Length: ${Buffer.byteLength(answer.body)}\r\n` +
    'Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n' +
    answer.body
  )
}

/** Fastify's `clientErrorHandler`, bound to the instance. */
export function handleConnectionError(
  this: FastifyInstance,
  error: NodeJS.ErrnoException & { rawPacket?: unknown },
  socket: Socket,
): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return
  const statusCode = (error.code && statusByCode[error.code]) || 400
  this.log.info({ code: error.code, statusCode }, 'connection rejected')
  if (socket.writable) {
    socket.write(connectionErrorResponse(this.plainErrorAnswers, statusCode, requestPath(error.rawPacket)))
  }
  socket.destroy()
}

/**
 * The server's `connect` listener. Courier is no proxy: without a listener Node destroys a CONNECT request's socket
 * without a word, so the client cannot tell a refusal from a crash. It gets 405 by the table and the connection closes.
 */
export function refuseConnect(this: FastifyInstance, request: IncomingMessage, socket: Socket): void {
  this.log.info({ method: request.method, statusCode: 405 }, 'connection rejected')
  // The target is usually `host:port`; a path (`CONNECT /api/x`) gets JSON under /api and /_next, like any error.
  const path = request.url?.startsWith('/') ? request.url : undefined
  if (socket.writable) socket.write(connectionErrorResponse(this.plainErrorAnswers, 405, path))
  socket.destroy()
}
