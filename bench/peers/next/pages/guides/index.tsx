import type { GetStaticProps } from 'next'
import Link from 'next/link'
import { PageHeadTags } from '../../components/page-head'
import { runContentLoader } from '../../content'
import type { GuidesData, PageHead } from '../../site'

interface Props {
  data: GuidesData
  head: PageHead
}

export const getStaticProps: GetStaticProps<Props> = () => runContentLoader<GuidesData>('guides', '/guides')

/** Courier's guide index (site/pages/guides.tsx with site/components/guide-list.tsx), the same markup: its first
 * page (the peer has no `/guides/page/<n>`; the pager's next link is Courier's). */
export default function GuidesPage({ data, head }: Props) {
  return (
    <article className="guides">
      <PageHeadTags head={head} />
      <h1>Guides</h1>
      <p className="lead">One guide for each mechanic Courier uses to deliver this site.</p>
      <ol className="guide-list">
        {data.guides.map((guide) => (
          <li key={guide.slug}>
            <Link href={`/guides/${guide.slug}`} prefetch={false}>
              {guide.title}
            </Link>
            <p>{guide.summary}</p>
          </li>
        ))}
      </ol>
      {data.pages > 1 ? (
        <nav className="pager" aria-label="Pages of guides">
          <span />
          <span>Page 1 of {data.pages}</span>
          <Link href="/guides/page/2" prefetch={false}>
            Page 2 →
          </Link>
        </nav>
      ) : null}
    </article>
  )
}
