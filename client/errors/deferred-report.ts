import type { ClientErrorSource } from '../../config/client-errors.ts'

/**
 * Error reporting as the first load carries it: a hand-over to errors/report.ts, which the page loads at its first
 * error only. Reports keep their order (one module, loaded once); a reporter that cannot load (offline, a newer
 * deployment) drops the report, as a report that cannot be sent is dropped: the console has the error already.
 */
export function reportClientError(source: ClientErrorSource, error: unknown, digest?: string): void {
  import('./report.ts').then(
    (report) => report.reportClientError(source, error, digest),
    () => undefined,
  )
}

function reportUncaughtError(event: ErrorEvent): void {
  reportClientError('onerror', event.error ?? event.message)
}

function reportUnhandledRejection(event: PromiseRejectionEvent): void {
  reportClientError('unhandledrejection', event.reason)
}

/** Reports uncaught errors and unhandled rejections of the page; returns the function that stops it. */
export function listenForUncaughtErrors(): () => void {
  window.addEventListener('error', reportUncaughtError)
  window.addEventListener('unhandledrejection', reportUnhandledRejection)
  return function stopListening() {
    window.removeEventListener('error', reportUncaughtError)
    window.removeEventListener('unhandledrejection', reportUnhandledRejection)
  }
}
