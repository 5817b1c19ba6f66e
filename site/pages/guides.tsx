import { definePage, type PageProps } from '../../client/page.ts'
import { titled, contentRevalidateS } from '../site.ts'
import type * as server from './guides.server.ts'
import { GuideList } from '../components/guide-list.tsx'
import { ListingPager } from '../components/listing-pager.tsx'
import type { GuidesData } from '../data-types.ts'

export const page = definePage<typeof server>({
  path: '/guides',
  kind: 'static',
  revalidate: contentRevalidateS,
  head: () => ({ title: titled('Guides'), description: 'One guide per delivery mechanic of Courier.' }),
})

/** `/guides` and `/guides/page/<n>`: one page of the list of guides, with links to the pages around it. */
export default function GuidesPage({ data }: PageProps<typeof server>) {
  return (
    <article className="guides">
      <h1>Guides</h1>
      <p className="lead">One guide for each mechanic Courier uses to deliver this site.</p>
      <GuideList guides={data.guides} ordered />
      <ListingPager page={data.page} pages={data.pages} />
    </article>
  )
}
