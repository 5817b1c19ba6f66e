import type { PageComponentProps } from '../page-modules.ts'
import { GuideList } from '../components/guide-list.tsx'
import type { GuidesData } from '../../site/data-types.ts'

export default function GuidesPage({ data }: PageComponentProps<GuidesData>) {
  return (
    <article className="guides">
      <h1>Guides</h1>
      <p className="lead">One guide for each mechanic Courier uses to deliver this site.</p>
      <GuideList guides={data.guides} ordered />
    </article>
  )
}
