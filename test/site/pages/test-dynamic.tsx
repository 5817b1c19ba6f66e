import { definePage, type PageComponentProps } from '../../../client/page.ts'
import { testTitled } from '../test-title.ts'
import type * as server from './test-dynamic.server.ts'
import { TestNav } from '../test-nav.tsx'

export const page = definePage<typeof server>({
  path: '/__test/dynamic',
  kind: 'dynamic',
  head: () => ({ title: testTitled('Dynamic') }),
})

export interface DynamicData {
  /** The deployment whose server loaded this request's data. */
  deploymentId: string
}

/** A dynamic page: its data is loaded for every request, never kept nor prefetched. Test routes only. */
export default function DynamicPage({ data }: PageComponentProps<DynamicData>) {
  return (
    <article>
      <h1>A dynamic page</h1>
      <TestNav />
      <p>
        Loaded for this request by deployment <span data-testid="deployment-id">{data.deploymentId}</span>.
      </p>
    </article>
  )
}
