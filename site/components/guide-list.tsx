import type { GuideSummary } from '../data-types.ts'
import { Link } from '../../client/components/link.tsx'

/** Links to guides, each with its summary: the home page lists the first page of them, /guides each page. */
export function GuideList({ guides, ordered = false }: { guides: GuideSummary[]; ordered?: boolean }) {
  const items = guides.map((guide) => (
    <li key={guide.slug}>
      <Link href={`/guides/${guide.slug}`}>{guide.title}</Link>
      <p>{guide.summary}</p>
    </li>
  ))
  return ordered ? <ol className="guide-list">{items}</ol> : <ul className="guide-list">{items}</ul>
}
