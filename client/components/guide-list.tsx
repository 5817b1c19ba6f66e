import type { GuideSummary } from '../../site/data-types.ts'
import { Link } from './link.tsx'

/**
 * Links to guides, each with its summary (and, on /guides, its sections): the home page lists them, so does /guides.
 */
export function GuideList({
  guides,
  ordered = false,
}: {
  guides: Array<GuideSummary & { sections?: string[] }>
  ordered?: boolean
}) {
  const items = guides.map((guide) => (
    <li key={guide.slug}>
      <Link href={`/guides/${guide.slug}`}>{guide.title}</Link>
      <p>{guide.summary}</p>
      {guide.sections ? <p className="guide-sections">In this guide: {guide.sections.join(' · ')}</p> : null}
    </li>
  ))
  return ordered ? <ol className="guide-list">{items}</ol> : <ul className="guide-list">{items}</ul>
}
