import type { PageComponentProps } from '../routes.ts'
import { GuideList } from '../components/guide-list.tsx'
import type { GuideSummary } from '../../src/pages/data-types.ts'

export interface GuidesData {
  /** Every guide, with the headings of its sections: the index is long enough to scroll (and to show prefetch). */
  guides: Array<GuideSummary & { sections: string[] }>
}

export default function GuidesPage({ data }: PageComponentProps<GuidesData>) {
  return (
    <article className="guides">
      <h1>Guides</h1>
      <p className="lead">One guide for each mechanic Courier uses to deliver this site.</p>
      <GuideList guides={data.guides} ordered />
    </article>
  )
}
