import type { PageComponentProps } from '../../../client/page-modules.ts'
import { Link } from '../../../client/components/link.tsx'
import { Markdown } from '../../../client/components/markdown.tsx'
import type { Guide } from '../../../site/data-types.ts'
import { TestNav } from '../test-nav.tsx'

export interface ContentItemData {
  guide: Guide
}

/** One guide of CONTENT_DIR, whole; an unknown slug is a 404. Static with `revalidate`. Test routes only. */
export default function ContentItemPage({ data }: PageComponentProps<ContentItemData>) {
  return (
    <article>
      <h1>{data.guide.title}</h1>
      <TestNav />
      <p className="lead">{data.guide.summary}</p>
      {data.guide.sections.map((section) => (
        <section key={section.anchor}>
          <h2 id={section.anchor}>{section.heading}</h2>
          <Markdown content={section.content} />
        </section>
      ))}
      <p>
        <Link data-testid="content-list-link" href="/__test/content">
          All content
        </Link>
      </p>
    </article>
  )
}
