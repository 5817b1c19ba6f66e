import type { PageComponentProps } from '../../../client/page-modules.ts'
import { Link } from '../../../client/components/link.tsx'
import type { GuideSummary } from '../../../site/data-types.ts'
import { Filler } from '../filler.tsx'
import { TestNav } from '../test-nav.tsx'

export interface TestGuidesData {
  guides: GuideSummary[]
}

/**
 * Every guide of the content (CONTENT_DIR), each linking its page (test-guide.tsx), then filler: the page is long
 * enough to scroll whatever the content holds. Kept and revalidated (`revalidate`, tagged `guides`): the test build's
 * static list page. Test routes only.
 */
export default function TestGuidesPage({ data }: PageComponentProps<TestGuidesData>) {
  return (
    <article>
      <h1>Guides of the content</h1>
      <TestNav />
      <ol className="content-list">
        {data.guides.map((guide) => (
          <li key={guide.slug}>
            <Link href={`/__test/guides/${guide.slug}`}>{guide.title}</Link>
            <p>{guide.summary}</p>
          </li>
        ))}
      </ol>
      <Filler lines={60} />
    </article>
  )
}
