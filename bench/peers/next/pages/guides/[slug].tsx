import type { GetStaticPaths, GetStaticProps } from 'next'
import Link from 'next/link'
import { Markdown } from '../../components/markdown'
import { PageHeadTags } from '../../components/page-head'
import site, { type GuideData, type PageHead } from '../../site'

interface Props {
  data: GuideData
  head: PageHead
}

export const getStaticPaths: GetStaticPaths = async () => ({
  paths: site.guides.map((guide) => ({ params: { slug: guide.slug } })),
  fallback: false,
})

export const getStaticProps: GetStaticProps<Props> = async ({ params }) => {
  const found = site.guides.find((guide) => guide.slug === params?.slug)
  return found ? { props: { data: found.data, head: found.head } } : { notFound: true }
}

/** Courier's guide page (client/pages/guide.tsx), the same markup. */
export default function GuidePage({ data, head }: Props) {
  const { guide, previous, next } = data
  return (
    <article className="guide">
      <PageHeadTags head={head} />
      <p className="breadcrumb">
        <Link href="/guides" prefetch={false}>
          Guides
        </Link>
      </p>
      <h1>{guide.title}</h1>
      <p className="lead">{guide.summary}</p>
      {guide.sections.map((section) => (
        <section key={section.anchor}>
          <h2 id={section.anchor}>{section.heading}</h2>
          <Markdown content={section.content} />
        </section>
      ))}
      <nav className="pager" aria-label="More guides">
        {previous ? <Link href={`/guides/${previous.slug}`}>← {previous.title}</Link> : <span />}
        {next ? <Link href={`/guides/${next.slug}`}>{next.title} →</Link> : <span />}
      </nav>
    </article>
  )
}
