import type { PageComponentProps } from '../../../client/page-modules.ts'
import { Link } from '../../../client/components/link.tsx'
import type { GuideSummary } from '../../../site/data-types.ts'

export interface TestGuidesData {
  guides: GuideSummary[]
}

/** Every guide of the content (CONTENT_DIR), kept and revalidated: the test build's static list page. Test routes only. */
export default function TestGuidesPage({ data }: PageComponentProps<TestGuidesData>) {
  return (
    <article>
      <h1>Guides of the content</h1>
      <ol>
        {data.guides.map((guide) => (
          <li key={guide.slug}>
            <Link href={`/__test/guides/${guide.slug}`}>{guide.title}</Link>
            <p>{guide.summary}</p>
          </li>
        ))}
      </ol>
    </article>
  )
}
