import { definePage, type PageComponentProps } from '../../../client/page.ts'
import { testTitled } from '../test-title.ts'
import type * as server from './test-slow.server.ts'
import { Suspense, use } from 'react'
import { settleAfter } from '../test-delay.ts'

export const page = definePage<typeof server>({
  path: '/__test/slow',
  kind: 'dynamic',
  head: () => ({ title: testTitled('Slow boundary') }),
})

export interface SlowData {
  delayMs: number
}

function SlowSection({ token, delayMs }: { token: object; delayMs: number }) {
  // The server waits; in the browser the content is already in the HTML, so hydration need not wait again.
  if (typeof window === 'undefined') use(settleAfter(token, delayMs))
  return <p id="slow-section">Resolved after {delayMs} ms.</p>
}

/** A page whose Suspense boundary resolves late: proves the shell is flushed before it. Test routes only. */
export default function SlowPage({ data }: PageComponentProps<SlowData>) {
  return (
    <article>
      <h1>Slow boundary</h1>
      <Suspense fallback={<p id="slow-fallback">Waiting…</p>}>
        <SlowSection token={data} delayMs={data.delayMs} />
      </Suspense>
    </article>
  )
}
