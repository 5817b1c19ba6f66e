import { definePage, type PageComponentProps } from '../../../client/page.ts'
import { testTitled } from '../test-title.ts'
import type * as server from './test-late-error.server.ts'
import { Suspense, use } from 'react'
import { settleAfter } from '../test-delay.ts'

export const page = definePage<typeof server>({
  path: '/__test/late-error',
  kind: 'dynamic',
  head: () => ({ title: testTitled('Late error') }),
})

export interface LateErrorData {
  delayMs: number
}

function LateSection({ token, delayMs }: { token: object; delayMs: number }) {
  // Fails on the server only, once the shell is out; in the browser React renders the boundary again, and it works.
  if (typeof window === 'undefined') {
    use(settleAfter(token, delayMs, new Error('a boundary failed after the shell on purpose (test route)')))
  }
  return <p id="late-section">Rendered in the browser.</p>
}

/** A page whose Suspense boundary fails after the shell has been flushed. Test routes only. */
export default function LateErrorPage({ data }: PageComponentProps<LateErrorData>) {
  return (
    <article>
      <h1 id="late-title">Late error</h1>
      <Suspense fallback={<p id="late-fallback">Waiting…</p>}>
        <LateSection token={data} delayMs={data.delayMs} />
      </Suspense>
    </article>
  )
}
