import { Component, Suspense, use, useContext, type ErrorInfo, type ReactNode } from 'react'
import { liveDataAttribute } from '../../src/common/document-state.ts'
import type { LiveData } from '../../src/common/page-types.ts'
import { serializeForScript } from '../../src/common/script-json.ts'
import { digestOf } from '../errors/digest.ts'
import { ApplicationErrorScreen } from './application-error-screen.tsx'
import { DocumentNonce } from './document-nonce.ts'

export interface RequestTimeProps<Live> {
  /** The page's request-time data (`PartialData.live`). */
  data: LiveData<Live>
  /** What the shell shows in the hole until the data has come: prerendered once, kept with the shell. */
  fallback: ReactNode
  /** The hole's content, drawn from the data. */
  children: (live: Live) => ReactNode
}

/**
 * The data as the hole carries it: a data script under the response's nonce, which the browser reads before it
 * hydrates (client/entry-client.tsx), so a document resumed from its shell ends without it. The browser renders the
 * same element where hydration finds the server's (its nonce hidden by then: no attribute to compare).
 */
function LiveDataScript({ data }: { data: LiveData<unknown> }) {
  const nonce = useContext(DocumentNonce)
  const attributes = { [liveDataAttribute]: '', type: 'application/json', nonce }
  const json = { __html: serializeForScript(data) }
  return <script {...attributes} suppressHydrationWarning dangerouslySetInnerHTML={json} />
}

/**
 * The data once it has come: the server waits for it here (the hole); the browser always has it already. The hole
 * carries the data it was drawn from (`LiveDataScript`).
 */
function Settled<Live>({ data, children }: { data: LiveData<Live>; children: (live: Live) => ReactNode }): ReactNode {
  const settled = 'pending' in data ? use(data.pending) : data
  if ('pending' in settled) return <Settled data={settled}>{children}</Settled>
  const content =
    'failed' in settled ? (
      <ApplicationErrorScreen side="server" host={settled.failed.host} digest={settled.failed.digest} />
    ) : (
      children(settled.value)
    )
  return (
    <>
      <LiveDataScript data={settled} />
      {content}
    </>
  )
}

interface HoleBoundaryState {
  failure: { digest: string | undefined } | undefined
}

/**
 * One hole's error boundary: a hole whose render fails in the browser (after the server gave it up, with the digest
 * of its log line) shows the application error screen's section in its place; the rest of the page stays.
 */
class HoleBoundary extends Component<{ children: ReactNode }, HoleBoundaryState> {
  constructor(props: { children: ReactNode }) {
    super(props)
    this.state = { failure: undefined }
  }

  static getDerivedStateFromError(error: unknown): HoleBoundaryState {
    return { failure: { digest: digestOf(error) } }
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    // To the console only: the reporter is the entry's (client/errors/deferred-report.ts), and importing it into a
    // page's chunk would split the bundler's preload helper out of the entry into a chunk of its own.
    console.error(error, info.componentStack ?? '')
  }

  override render(): ReactNode {
    const { failure } = this.state
    if (!failure) return this.props.children
    const side = failure.digest ? 'server' : 'client'
    return <ApplicationErrorScreen side={side} host={window.location.host} digest={failure.digest} />
  }
}

/**
 * A hole of a partly prerendered page (docs/rendering.md "Partial prerendering"): what reads request-time data sits
 * in here. The server prerenders the page once with the data pending, so the shell holds `fallback` here, and each
 * request resumes the hole with its own data. A failed loader shows the application error screen's section with its
 * digest, rendered on the server; a render that fails is finished in the browser by the hole's own error boundary.
 */
export function RequestTime<Live>({ data, fallback, children }: RequestTimeProps<Live>) {
  return (
    <HoleBoundary>
      <Suspense fallback={fallback}>
        <Settled data={data}>{children}</Settled>
      </Suspense>
    </HoleBoundary>
  )
}
