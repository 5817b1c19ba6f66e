import type { PageComponentProps } from '../../client/page-modules.ts'
import { GuideList } from '../components/guide-list.tsx'
import { Link } from '../../client/components/link.tsx'
import { listingPath } from '../components/listing-pager.tsx'
import { Image } from '../../client/components/image.tsx'
import { contentColumn } from '../../src/common/image-sources.ts'
import type { HomeData } from '../data-types.ts'

export default function HomePage({ data }: PageComponentProps<HomeData>) {
  return (
    <article className="home">
      <h1>Courier</h1>
      <p className="lead">
        A Fastify server that delivers a React site as a client-side application: the first view streams from the
        server, every later view is rendered in the browser from page data, and every step is logged.
      </p>
      <Image className="hero" {...data.hero} slot={contentColumn} priority />
      <h2>Guides</h2>
      <GuideList guides={data.guides.guides} />
      {data.guides.pages > 1 ? (
        <p>
          <Link href={listingPath(2)}>More guides ({data.guides.total} in all) →</Link>
        </p>
      ) : null}
    </article>
  )
}
