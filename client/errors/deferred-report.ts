import type { ClientErrorSource } from '../../config/client-errors.ts'

type Reporter = typeof import('./report.ts')

let reporter: Reporter | undefined
let loading: Promise<Reporter | undefined> | undefined

/**
 * Loads the reporter (errors/report.ts) once: the page does so after hydration, so a report goes out at once, and
 * at the first error if that comes sooner. Never rejects; a reporter that could not load is tried again next time.
 */
export function loadReporter(): Promise<Reporter | undefined> {
  if (!loading) {
    loading = import('./report.ts').then(
      (loaded) => (reporter = loaded),
      () => (loading = undefined),
    )
  }
  return loading
}

/**
 * Error reporting as the first load carries it: a hand-over to errors/report.ts, which is not part of the first
 * load. Reports keep their order (one module); one that cannot be handed over (the reporter cannot load: offline, a
 * newer deployment) is dropped, as a report that cannot be sent is: the console has the error already.
 */
export function reportClientError(source: ClientErrorSource, error: unknown, digest?: string): void {
  if (reporter) reporter.reportClientError(source, error, digest)
  else void loadReporter().then((loaded) => loaded?.reportClientError(source, error, digest))
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
