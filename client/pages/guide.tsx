import type { PageComponentProps } from '../routes.ts'
import type { GuideData } from '../../src/pages/data-types.ts'

export default function GuidePage({ data }: PageComponentProps<GuideData>) {
  const { guide, previous, next } = data
  return (
    <article className="guide">
      <p className="breadcrumb">
        <a href="/guides">Guides</a>
      </p>
      <h1>{guide.title}</h1>
      <p className="lead">{guide.summary}</p>
      {guide.sections.map((section) => (
        <section key={section.heading}>
          <h2>{section.heading}</h2>
          {section.paragraphs.map((paragraph, index) => (
            <p key={index}>{paragraph}</p>
          ))}
        </section>
      ))}
      <nav className="pager" aria-label="More guides">
        {previous ? <a href={`/guides/${previous.slug}`}>← {previous.title}</a> : <span />}
        {next ? <a href={`/guides/${next.slug}`}>{next.title} →</a> : <span />}
      </nav>
    </article>
  )
}
