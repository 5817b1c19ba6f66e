import type { PageComponentProps } from '../../client/page-modules.ts'
import { GuideList } from '../components/guide-list.tsx'
import { ListingPager } from '../components/listing-pager.tsx'
import type { GuidesData } from '../data-types.ts'

/** `/guides` and `/guides/page/<n>`: one page of the list of guides, with links to the pages around it. */
export default function GuidesPage({ data }: PageComponentProps<GuidesData>) {
  return (
    <article className="guides">
      <h1>Guides</h1>
      <p className="lead">One guide for each mechanic Courier uses to deliver this site.</p>
      <GuideList guides={data.guides} ordered />
      <ListingPager page={data.page} pages={data.pages} />
    </article>
  )
}
