import type { PageComponentProps } from '../routes.ts'
import type { GuideSummary } from '../../src/pages/data-types.ts'

export interface GuidesData {
  guides: GuideSummary[]
}

export default function GuidesPage({ data }: PageComponentProps<GuidesData>) {
  return (
    <article className="guides">
      <h1>Guides</h1>
      <p className="lead">One guide for each mechanic Courier uses to deliver this site.</p>
      <ol className="guide-list">
        {data.guides.map((guide) => (
          <li key={guide.slug}>
            <a href={`/guides/${guide.slug}`}>{guide.title}</a>
            <p>{guide.summary}</p>
          </li>
        ))}
      </ol>
    </article>
  )
}
