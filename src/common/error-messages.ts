/**
 * The application error screen's words (docs/errors.md), shared by the client's root error boundary and the
 * server, which streams the same screen after a failure past the flushed shell. Plain strings: no React here.
 */
export type ExceptionSide = 'client' | 'server'

export function applicationErrorMessage(side: ExceptionSide, host: string): string {
  return (
    `Application error: a ${side}-side exception has occurred while loading ${host} ` +
    '(see the browser console for more information).'
  )
}

export function digestLine(digest: string): string {
  return `Digest: ${digest}`
}

/** Id of the screen the server appends after the app when a boundary fails past the shell. */
export const lateErrorElementId = '__COURIER_LATE_ERROR__'

/** What the browser console says about a server-side exception: the digest is the way to its server log line. */
export function serverExceptionConsoleMessage(digest: string): string {
  return (
    `Courier: a server-side exception occurred while rendering this page. ${digestLine(digest)} ` +
    '(the server log line carries the same digest)'
  )
}
