import { applicationErrorMessage, digestLine, type ExceptionSide } from '../../src/common/error-messages.ts'

/** The application error screen: what the root error boundary shows once the app has failed in the browser. */
export function ApplicationErrorScreen({
  side,
  host,
  digest,
}: {
  side: ExceptionSide
  host: string
  digest?: string | undefined
}) {
  return (
    <section className="error-screen application-error" role="alert">
      <h1 className="application-error-message">{applicationErrorMessage(side, host)}</h1>
      {digest ? <p className="application-error-digest">{digestLine(digest)}</p> : null}
      <p>
        <a href="/">Go to the home page</a>
      </p>
    </section>
  )
}
