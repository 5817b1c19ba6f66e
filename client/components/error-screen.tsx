import { useEffect } from 'react'
import { applicationErrorMessage, digestLine, serverExceptionConsoleMessage } from '../../src/common/error-messages.ts'

export interface ErrorScreenProps {
  statusCode: number
  title: string
  digest?: string | undefined
  host?: string | undefined
}

/**
 * The generic error page: `<status>: <title>`, as the status-title table gives it (config/status-titles.ts). A
 * server-side exception (one that carries a digest) also gets the application error screen's words and its digest.
 */
export function ErrorScreen({ statusCode, title, digest, host }: ErrorScreenProps) {
  useEffect(
    function logServerException() {
      if (digest) console.error(serverExceptionConsoleMessage(digest))
    },
    [digest],
  )
  return (
    <section className="error-screen" aria-labelledby="error-title">
      <h1 id="error-title">
        <span className="error-status">{statusCode}</span>
        <span className="error-title">{title}</span>
      </h1>
      {digest ? (
        <>
          <p className="application-error-message">{applicationErrorMessage('server', host ?? '')}</p>
          <p className="application-error-digest">{digestLine(digest)}</p>
        </>
      ) : null}
      <p>
        <a href="/">Go to the home page</a>
      </p>
    </section>
  )
}
