import type { PageComponentProps } from '../../../client/page-modules.ts'
import { Link } from '../../../client/components/link.tsx'
import type { GuideSummary } from '../../../site/data-types.ts'
import { TestNav } from '../test-nav.tsx'

export interface ContentListData {
  entries: GuideSummary[]
}

/**
 * Every guide of CONTENT_DIR, each linking its page (test-content-item.tsx), then filler: the page is long enough to
 * scroll whatever the content holds. Static with `revalidate`, tagged `guides`. Test routes only.
 */
export default function ContentListPage({ data }: PageComponentProps<ContentListData>) {
  return (
    <article>
      <h1>Content</h1>
      <TestNav />
      <ul className="content-list">
        {data.entries.map((entry) => (
          <li key={entry.slug}>
            <Link href={`/__test/content/${entry.slug}`}>{entry.title}</Link>
            <p>{entry.summary}</p>
          </li>
        ))}
      </ul>
      {Array.from({ length: 60 }, (_, index) => (
        <p key={index}>Filler line {index + 1}.</p>
      ))}
    </article>
  )
}
