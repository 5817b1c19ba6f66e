import { definePage, type PageComponentProps } from '../../../client/page.ts'
import { testTitled } from '../test-title.ts'
import type * as server from './test-guides.server.ts'
import { Link } from '../../../client/components/link.tsx'
import type { GuideSummary } from '../../../site/data-types.ts'
import { Filler } from '../filler.tsx'
import { TestNav } from '../test-nav.tsx'

export const page = definePage<typeof server>({
  // Those that read the guides of the content (CONTENT_DIR), kept and fresh within a minute of an edit as a site's
  // content pages are: a list and a page per guide, which the other suites drive too (test/helpers/site-pages.ts).
  path: '/__test/guides',
  kind: 'static',
  revalidate: 60,
  head: () => ({ title: testTitled('Guides of the content') }),
})

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
