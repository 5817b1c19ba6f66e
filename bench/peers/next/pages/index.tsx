import type { GetStaticProps } from 'next'
import Image from 'next/image'
import Link from 'next/link'
import { PageHeadTags } from '../components/page-head'
import { runContentLoader } from '../content'
import site, { type HomeData, type PageHead } from '../site'

interface Props {
  data: HomeData
  head: PageHead
}

export const getStaticProps: GetStaticProps<Props> = () => runContentLoader<HomeData>('home', '/')

/** Courier's home page (site/pages/home.tsx): the same markup, the hero through next/image. */
export default function HomePage({ data, head }: Props) {
  return (
    <article className="home">
      <PageHeadTags head={head} />
      <h1>Courier</h1>
      <p className="lead">
        A Fastify server that delivers a React site as a client-side application: the first view streams from the
        server, every later view is rendered in the browser from page data, and every step is logged.
      </p>
      <Image
        className="hero"
        src={data.hero.src}
        alt={data.hero.alt}
        width={data.hero.width}
        height={data.hero.height}
        sizes={site.columnSizes}
        priority
      />
      <h2>Guides</h2>
      <ul className="guide-list">
        {data.guides.guides.map((guide) => (
          <li key={guide.slug}>
            <Link href={`/guides/${guide.slug}`} prefetch={false}>
              {guide.title}
            </Link>
            <p>{guide.summary}</p>
          </li>
        ))}
      </ul>
      {data.guides.pages > 1 ? (
        <p>
          <Link href="/guides/page/2" prefetch={false}>
            More guides ({data.guides.total} in all) →
          </Link>
        </p>
      ) : null}
    </article>
  )
}
