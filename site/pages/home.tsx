import { definePage, type PageProps } from '../../client/page.ts'
import { siteName, contentRevalidateS } from '../site.ts'
import type * as server from './home.server.ts'
import { GuideList } from '../components/guide-list.tsx'
import { Link } from '../../client/components/link.tsx'
import { listingPath } from '../components/listing-pager.tsx'
import { Image } from '../../client/components/image.tsx'
import { contentColumn } from '../../src/common/image-sources.ts'
import type { HomeData } from '../data-types.ts'

export const page = definePage<typeof server>({
  path: '/',
  kind: 'static',
  revalidate: contentRevalidateS,
  // The hero is an Image with priority: React preloads it with the shell, with the same srcset and sizes.
  head: () => ({
    title: `${siteName}: React delivery on Fastify`,
    description: 'Courier serves a React site with streaming server rendering, page data and a prefetching router.',
  }),
})

export default function HomePage({ data }: PageProps<typeof server>) {
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
