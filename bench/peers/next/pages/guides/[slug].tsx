import type { GetStaticPaths, GetStaticProps } from 'next'
import Link from 'next/link'
import { Markdown } from '../../components/markdown'
import { PageHeadTags } from '../../components/page-head'
import { peerContent, runContentLoader } from '../../content'
import type { GuideData, PageHead } from '../../site'

interface Props {
  data: GuideData
  head: PageHead
}

// The guides in CONTENT_DIR at build time are prerendered; one added later is loaded when first asked ('blocking'),
// as Courier loads a page it does not keep yet.
export const getStaticPaths: GetStaticPaths = async () => ({
  paths: await (await peerContent()).guidePaths(),
  fallback: 'blocking',
})

// Read from CONTENT_DIR at each run; a removed guide answers not found (and is checked again after `revalidate`).
export const getStaticProps: GetStaticProps<Props> = async ({ params }) => {
  const slug = typeof params?.slug === 'string' ? params.slug : ''
  return runContentLoader<GuideData>('guide', `/guides/${slug}`, { slug })
}

/** Courier's guide page (site/pages/guide.tsx), the same markup. */
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
