import { definePage } from '../../../client/page.ts'
import { testTitled } from '../test-title.ts'
import { TestNav } from '../test-nav.tsx'

export const page = definePage({
  // The pages the browser suite navigates between (test/e2e/test-pages.ts), each with the test pages' navigation.
  path: '/__test/static',
  kind: 'static',
  head: () => ({ title: testTitled('Static') }),
})

/** A static page without data and without `revalidate`: rendered once per deployment and kept. Test routes only. */
export default function StaticPage() {
  return (
    <article>
      <h1>A static page</h1>
      <TestNav />
      <p className="lead">Rendered once for this deployment.</p>
    </article>
  )
}
