/**
 * The label values of Courier's metrics (src/metrics/courier-metrics.ts): route templates, fixed words and the
 * build's own values, never what a request asked for, so the number of series is bounded by the route table
 * (docs/operations.md "Metrics").
 */
import type { FastifyRequest } from 'fastify'
import { labelledMethods, otherMethod, unmatchedRoute } from '../../config/metrics.ts'
import { routeTemplate } from '../route-template.ts'

/** What a client report's answer says, by its status (plugins/client-errors.ts answers these and no other). */
const clientReportResults: Readonly<Record<number, string>> = Object.freeze({
  204: 'accepted',
  400: 'invalid',
  405: 'method_not_allowed',
  413: 'too_large',
  415: 'unsupported_type',
  429: 'rate_limited',
})

const statusClasses = Object.freeze(['1xx', '2xx', '3xx', '4xx', '5xx'])
const knownMethods = new Set(labelledMethods)

/**
 * The route template Fastify matched (`/guides/:slug`) or a 405 was answered on (src/method-not-allowed.ts), or one
 * fixed value: never the URL as asked.
 */
export function routeLabel(request: FastifyRequest): string {
  return routeTemplate(request) ?? unmatchedRoute
}

export function methodLabel(method: string): string {
  return knownMethods.has(method) ? method : otherMethod
}

export function statusClassLabel(statusCode: number): string {
  // Node sends no status outside 100-599; `other` only keeps the label bounded whatever a reply is given.
  return statusClasses[Math.floor(statusCode / 100) - 1] ?? 'other'
}

/** A client report's fate by its answer's status; `failed` for any other (a 5xx). */
export function clientReportResult(statusCode: number): string {
  return clientReportResults[statusCode] ?? 'failed'
}
