import fp from 'fastify-plugin'
import underPressure, { type FastifyUnderPressureOptions } from '@fastify/under-pressure'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { errors } from '../src/errors.ts'

export interface LoadSheddingOptions {
  /** Shed while the mean event-loop delay of the last sample is over this (config/server.ts maxEventLoopDelayMs). */
  maxEventLoopDelayMs: number
  /**
   * How often the delay is sampled (config/server.ts loadSampleIntervalMs); at least 10 ms, under-pressure's
   * resolution.
   */
  sampleIntervalMs: number
  /** `Retry-After` of a shed request (config/server.ts overloadRetryAfterSeconds). */
  retryAfterSeconds: number
}

/** under-pressure sends what the handler returns (its README: "any other return value than a promise or nullish will
 * be sent") and stops the hooks there; its types only know the void form. */
type PressureHandler = NonNullable<FastifyUnderPressureOptions['pressureHandler']>

const overloaded = new errors.ServerOverloaded()
const overloadedStatus = overloaded.statusCode ?? 503

/** One episode of shedding, from the first shed request to the first request served again. */
interface Episode {
  startedAt: number
  shed: number
}

function checkPositive(name: string, value: unknown, minimum: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < minimum) {
    throw new errors.OptionInvalid(name, `a number of at least ${minimum}`)
  }
}

/**
 * Overload shedding (@fastify/under-pressure): while the event loop is saturated, new requests are answered at once
 * with 503 and `Retry-After` instead of queueing behind the work that saturates it, and served again as soon as a
 * sample finds the loop responsive. The answer follows the status-title table like every other error (JSON for the
 * API and /_next, an HTML page otherwise) but never renders React: under overload the answer must cost nothing. It
 * carries no digest (nothing failed) and writes no error line: each shed request has its access line (warn, as
 * every 503), and an episode is logged twice, when it starts (warn) and when it ends (info, with the count).
 * Routes with `config.exemptFromShedding` are always served (the liveness probe: a busy process is alive).
 */
async function loadShedding(fastify: FastifyInstance, options: LoadSheddingOptions) {
  const { maxEventLoopDelayMs, sampleIntervalMs, retryAfterSeconds } = options
  checkPositive('maxEventLoopDelayMs', maxEventLoopDelayMs, 1)
  checkPositive('sampleIntervalMs', sampleIntervalMs, 10)
  checkPositive('retryAfterSeconds', retryAfterSeconds, 1)
  const retryAfter = String(Math.ceil(retryAfterSeconds))
  let episode: Episode | undefined
  const metrics = fastify.metrics

  function shedRequest(request: FastifyRequest, reply: FastifyReply, type: string, value: number | undefined) {
    if (request.routeOptions.config.exemptFromShedding) return undefined
    metrics?.requestShed('overload')
    if (episode) episode.shed += 1
    else {
      episode = { startedAt: Date.now(), shed: 1 }
      request.log.warn({ code: overloaded.code, type, value, maxEventLoopDelayMs }, 'shedding load')
    }
    const answer = fastify.plainErrorAnswers.answer(request.url, overloadedStatus, overloaded.code)
    reply
      .code(overloadedStatus)
      .header('retry-after', retryAfter)
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .type(answer.contentType)
    return answer.body
  }

  await fastify.register(underPressure, {
    maxEventLoopDelay: maxEventLoopDelayMs,
    sampleInterval: sampleIntervalMs,
    retryAfter: Number(retryAfter),
    // Its type says the handler returns nothing; under-pressure sends what it returns (the table's answer, a string).
    pressureHandler: shedRequest as unknown as PressureHandler,
  })

  // Runs only for requests under-pressure let through: the first one after an episode closes it (an exempt route
  // is let through during one too, so it closes nothing).
  fastify.addHook('onRequest', function endSheddingEpisode(request, _reply, done) {
    if (episode && !request.routeOptions.config.exemptFromShedding) {
      request.log.info({ shed: episode.shed, ms: Date.now() - episode.startedAt }, 'load shedding ended')
      episode = undefined
    }
    done()
  })
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Never shed this route under overload (the liveness probe). */
    exemptFromShedding?: boolean
  }
}

export default fp(loadShedding, { name: 'courier-load-shedding', fastify: '5.x' })
