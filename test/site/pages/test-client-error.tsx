import { definePage } from '../../../client/page.ts'
import { testTitled } from '../test-title.ts'
import { useState } from 'react'

export const page = definePage({
  path: '/__test/client-error',
  kind: 'dynamic',
  head: () => ({ title: testTitled('Client error') }),
})

function Exploding(): never {
  throw new Error('a component failed in the browser on purpose (test route)')
}

/** Renders fine; the `#throw` button makes the next render throw in the browser. Test routes only. */
export default function ClientErrorPage() {
  const [broken, setBroken] = useState(false)
  return (
    <article>
      <h1>Client error</h1>
      <button id="throw" type="button" onClick={() => setBroken(true)}>
        Throw
      </button>
      {broken ? <Exploding /> : null}
    </article>
  )
}
