import { Component, type ErrorInfo, type ReactNode } from 'react'
import { ApplicationErrorScreen } from '../components/error-screen.tsx'
import { lateErrorElementId, serverExceptionConsoleMessage } from './messages.ts'
import { digestOf, listenForUncaughtErrors, reportClientError } from './report.ts'

interface RootErrorBoundaryState {
  failure: { digest: string | undefined } | undefined
}

/**
 * The root error boundary: an exception in the app replaces it with the application error screen, goes to the
 * console and is reported to the server. An error React recovered from the server (it carries the server's digest)
 * shows the server-side variant with that digest. It also reports the page's uncaught errors and rejections.
 */
export class RootErrorBoundary extends Component<{ children: ReactNode }, RootErrorBoundaryState> {
  override state: RootErrorBoundaryState = { failure: undefined }
  #stopListening: (() => void) | undefined

  static getDerivedStateFromError(error: unknown): RootErrorBoundaryState {
    return { failure: { digest: digestOf(error) } }
  }

  override componentDidMount(): void {
    this.#stopListening = listenForUncaughtErrors()
    // The server streamed the error screen after the app: a boundary failed once the shell was out.
    const lateDigest = document.getElementById(lateErrorElementId)?.dataset.digest
    if (lateDigest) console.error(serverExceptionConsoleMessage(lateDigest))
  }

  override componentWillUnmount(): void {
    this.#stopListening?.()
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error(error, info.componentStack ?? '')
    reportClientError('boundary', error)
  }

  override render(): ReactNode {
    const { failure } = this.state
    if (!failure) return this.props.children
    return (
      <ApplicationErrorScreen
        side={failure.digest ? 'server' : 'client'}
        host={window.location.host}
        digest={failure.digest}
      />
    )
  }
}
