import type { PageComponentProps } from '../../../client/page-modules.ts'
import { TestNav } from '../test-nav.tsx'

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
