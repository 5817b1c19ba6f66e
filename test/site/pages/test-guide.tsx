import { definePage, type PageComponentProps } from '../../../client/page.ts'
import { testTitled } from '../test-title.ts'
import type * as server from './test-guide.server.ts'
import { Link } from '../../../client/components/link.tsx'
import { Markdown } from '../../../client/components/markdown.tsx'
import type { Guide, GuideSummary } from '../../../site/data-types.ts'
import { TestNav } from '../test-nav.tsx'

export const page = definePage<typeof server>({
  path: '/__test/guides/:slug',
  kind: 'static',
  revalidate: 60,
  head: (data) => ({ title: testTitled(data.guide.title), description: data.guide.summary }),
})

export interface TestGuideData {
  guide: Guide
  previous: GuideSummary | null
  next: GuideSummary | null
}

/**
 * One guide of the content (CONTENT_DIR), whole, kept and revalidated: the test build's static page with a parameter,
 * whatever pages the site has; an unknown slug is a 404. Its pager links its neighbours, so a change to any guide may
 * change it. Test routes only.
 */
export default function TestGuidePage({ data }: PageComponentProps<TestGuideData>) {
  const { guide, previous, next } = data
  return (
    <article>
      <h1>{guide.title}</h1>
      <TestNav />
      <p className="lead">{guide.summary}</p>
      {guide.sections.map((section) => (
        <section key={section.anchor}>
          <h2 id={section.anchor}>{section.heading}</h2>
          <Markdown content={section.content} />
        </section>
      ))}
      <nav aria-label="More guides">
        {previous ? <Link href={`/__test/guides/${previous.slug}`}>← {previous.title}</Link> : <span />}
        {next ? <Link href={`/__test/guides/${next.slug}`}>{next.title} →</Link> : <span />}
      </nav>
      <p>
        <Link data-testid="content-list-link" href="/__test/guides">
          All guides
        </Link>
      </p>
    </article>
  )
}
