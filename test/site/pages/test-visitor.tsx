import { definePage, type PageProps } from '../../../client/page.ts'
import { testTitled } from '../test-title.ts'
import type * as server from './test-visitor.server.ts'
import { TestNav } from '../test-nav.tsx'

export const page = definePage<typeof server>({
  path: '/__test/visitor',
  kind: 'dynamic',
  sitemap: false,
  head: (data) => ({ title: testTitled(`Visitor ${data.visitor}`) }),
})

/** A per-user page: it shows the visitor the request names, and nothing of it is ever kept or shared. */
export default function VisitorPage({ data }: PageProps<typeof server>) {
  return (
    <article>
      <h1>A visitor's own page</h1>
      <TestNav />
      <p>
        Signed in as <span data-testid="visitor">{data.visitor}</span>.
      </p>
    </article>
  )
}
