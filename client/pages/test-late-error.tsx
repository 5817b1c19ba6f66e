import { Suspense, use } from 'react'
import type { PageComponentProps } from '../routes.ts'

export interface LateErrorData {
  delayMs: number
}

/** Per-render failures: a module-level promise would reject only once. */
const pending = new WeakMap<object, Promise<never>>()

function failAfter(key: object, ms: number): Promise<never> {
  let promise = pending.get(key)
  if (!promise) {
    promise = new Promise((_resolve, reject) => {
      setTimeout(() => reject(new Error('a boundary failed after the shell on purpose (test route)')), ms)
    })
    pending.set(key, promise)
  }
  return promise
}

function LateSection({ token, delayMs }: { token: object; delayMs: number }) {
  // Fails on the server only, once the shell is out; in the browser React renders the boundary again, and it works.
  if (typeof window === 'undefined') use(failAfter(token, delayMs))
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
