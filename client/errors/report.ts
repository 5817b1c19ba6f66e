import {
  clientErrorLimits,
  clientErrorsPath,
  type ClientErrorReport,
  type ClientErrorSource,
} from '../../config/client-errors.ts'
import { digestOf } from './digest.ts'

/**
 * Sends client-side exceptions to the server's log (POST /api/client-errors). Each distinct error is sent once and a
 * page sends at most `maxPerPage` reports, so a failing render loop cannot flood the server. Fire and forget: a
 * report that cannot be sent is dropped (the console still has the error). The page loads this module at its first
 * error only (errors/deferred-report.ts): it is not part of the first load.
 */
const sent = new Set<string>()

function truncate(text: string, maxLength: number): string {
  return text.length > maxLength ? text.slice(0, maxLength) : text
}

function describe(error: unknown): { message: string; stack?: string; digest?: string } {
  if (error instanceof Error) {
    const digest = digestOf(error)
    return {
      message: `${error.name}: ${error.message}`,
      ...(error.stack ? { stack: error.stack } : {}),
      ...(digest ? { digest } : {}),
    }
  }
  return { message: typeof error === 'string' ? error : 'a non-Error value was thrown' }
}

export function reportClientError(source: ClientErrorSource, error: unknown, digest?: string): void {
  if (sent.size >= clientErrorLimits.maxPerPage) return
  const described = describe(error)
  const report: ClientErrorReport = {
    source,
    message: truncate(described.message || 'unknown error', clientErrorLimits.messageMaxLength),
    url: truncate(window.location.href, clientErrorLimits.urlMaxLength),
  }
  if (described.stack) report.stack = truncate(described.stack, clientErrorLimits.stackMaxLength)
  const reportDigest = digest ?? described.digest
  if (reportDigest) report.digest = truncate(reportDigest, clientErrorLimits.digestMaxLength)
  // With tracing on, the page names its request's trace: the report joins it (the server links the two).
  const traceparent = document.querySelector('meta[name="traceparent"]')?.getAttribute('content')
  if (traceparent) report.traceparent = traceparent
  const key = `${report.message}\n${report.stack ?? ''}`
  if (sent.has(key)) return
  sent.add(key)
  const body = JSON.stringify(report)
  try {
    const blob = new Blob([body], { type: 'application/json' })
    if (navigator.sendBeacon?.(clientErrorsPath, blob)) return
    void fetch(clientErrorsPath, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
      keepalive: true,
    }).catch(() => undefined)
  } catch {
    // Reporting must never throw into the page; the error is on the console already.
  }
}
