import { definePage, type PageProps } from '../../client/page.ts'
import { titled, contentRevalidateS } from '../site.ts'
import type * as server from './guide.server.ts'
import type { GuideData } from '../data-types.ts'
import { Link } from '../../client/components/link.tsx'
import { Markdown } from '../../client/components/markdown.tsx'

export const page = definePage<typeof server>({
  path: '/guides/:slug',
  kind: 'static',
  revalidate: contentRevalidateS,
  head: (data) => ({ title: titled(data.guide.title), description: data.guide.summary }),
})

export default function GuidePage({ data, actionData }: PageProps<typeof server>) {
  const { guide, previous, next } = data
  return (
    <article className="guide">
      <p className="breadcrumb">
        <Link href="/guides">Guides</Link>
      </p>
      <h1>{guide.title}</h1>
      <p className="lead">{guide.summary}</p>
      {guide.sections.map((section) => (
        <section key={section.anchor}>
          <h2 id={section.anchor}>{section.heading}</h2>
          <Markdown content={section.content} />
        </section>
      ))}
      {/* A plain form (docs/client-bundle.md, "Form on two pages"): sending feedback lands on the account page. */}
      <form method="post" aria-label="Feedback" className="feedback">
        <label>
          Feedback on this guide (signed in; only you see it, on your account page)
          <textarea
            name="body"
            rows={3}
            maxLength={2000}
            defaultValue={actionData?.body ?? ''}
            aria-invalid={actionData ? true : undefined}
          />
        </label>
        {actionData ? <p className="field-error">{actionData.error}</p> : null}
        <button type="submit">Send feedback</button>
      </form>
      <nav className="pager" aria-label="More guides">
        {previous ? <Link href={`/guides/${previous.slug}`}>← {previous.title}</Link> : <span />}
        {next ? <Link href={`/guides/${next.slug}`}>{next.title} →</Link> : <span />}
      </nav>
    </article>
  )
}
