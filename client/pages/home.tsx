import type { PageComponentProps } from '../routes.ts'
import { GuideList } from '../components/guide-list.tsx'
import { columnSizes, Image } from '../components/image.tsx'
import type { GuideSummary, PageImage } from '../../src/pages/data-types.ts'

export interface HomeData {
  guides: GuideSummary[]
  /** The first view's large image: drawn with priority and preloaded in the head (client/routes.ts). */
  hero: PageImage
}

export default function HomePage({ data }: PageComponentProps<HomeData>) {
  return (
    <article className="home">
      <h1>Courier</h1>
      <p className="lead">
        A Fastify server that delivers a React site as a client-side application: the first view streams from the
        server, every later view is rendered in the browser from page data, and every step is logged.
      </p>
      <Image className="hero" {...data.hero} sizes={columnSizes} priority />
      <h2>Guides</h2>
      <GuideList guides={data.guides} />
    </article>
  )
}
