import { Component, type ErrorInfo, type ReactNode } from 'react'
import { ApplicationErrorScreen } from '../components/application-error-screen.tsx'
import { lateErrorElementId, serverExceptionConsoleMessage } from '../../src/common/error-messages.ts'
import { reportClientError } from './deferred-report.ts'
import { digestOf } from './digest.ts'

interface RootErrorBoundaryState {
  failure: { digest: string | undefined } | undefined
}

/**
 * The root error boundary: an exception in the app replaces it with the application error screen, goes to the
 * console and is reported to the server. An error React recovered from the server (it carries the server's digest)
 * shows the server-side variant with that digest. (The page's uncaught errors and rejections are reported from the
 * entry: client/entry-client.tsx.)
 */
export class RootErrorBoundary extends Component<{ children: ReactNode }, RootErrorBoundaryState> {
  // State set in the constructor, no class fields: the targets need them lowered, with helpers in the first load.
  constructor(props: { children: ReactNode }) {
    super(props)
    this.state = { failure: undefined }
  }

  static getDerivedStateFromError(error: unknown): RootErrorBoundaryState {
    return { failure: { digest: digestOf(error) } }
  }

  override componentDidMount(): void {
    // The server streamed the error screen after the app: a boundary failed once the shell was out.
    const lateDigest = document.getElementById(lateErrorElementId)?.dataset.digest
    if (lateDigest) console.error(serverExceptionConsoleMessage(lateDigest))
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
