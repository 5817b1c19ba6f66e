import { definePage } from '../../../client/page.ts'
import { testTitled } from '../test-title.ts'

export const page = definePage({
  path: '/__test/shell-error',
  kind: 'dynamic',
  head: () => ({ title: testTitled('Shell error') }),
})
function Broken(): never {
  throw new Error('a component failed before the shell on purpose (test route)')
}

/** Throws while React renders the shell, outside any Suspense boundary: the visitor gets the 500 page. Test routes only. */
export default function ShellErrorPage() {
  return (
    <article>
      <h1>Shell error</h1>
      <Broken />
    </article>
  )
}
