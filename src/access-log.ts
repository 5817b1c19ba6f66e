import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'
import { loggableUrl } from './logger.ts'
import { routeTemplate } from './route-template.ts'

/** The fields of Courier's one access line per request (docs/operations.md "Logs"). */
export function accessLine(request: FastifyRequest, reply: FastifyReply) {
  return {
    method: request.method,
    url: loggableUrl(request.url),
    route: routeTemplate(request) ?? null,
    statusCode: reply.statusCode,
    ms: Math.round(reply.elapsedTime * 100) / 100,
    filter: request.filterDecision ?? 'excluded',
  }
}

/**
 * Replaces Fastify's two lines per request ("incoming request", "request completed") with one access line written
 * when the response is done: error level for 5xx (warn for 503), info otherwise.
 */
export class AccessLogController extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'reqId' })
  }

  override incomingRequest(): void {}

  override routeNotFound(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = accessLine(request, reply)
    if (error) request.log.error({ ...line, err: error }, 'request completed')
    // 503 refuses work the client may retry (load shed, image queue full): expected under load, not a failure.
    else if (line.statusCode === 503) request.log.warn(line, 'request completed')
    else if (line.statusCode >= 500) request.log.error(line, 'request completed')
    else request.log.info(line, 'request completed')
  }
}
