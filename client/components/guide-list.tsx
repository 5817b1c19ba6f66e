import type { GuideSummary } from '../../src/pages/data-types.ts'

/** Links to guides, each with its summary: the home page lists them, so does /guides. */
export function GuideList({ guides, ordered = false }: { guides: GuideSummary[]; ordered?: boolean }) {
  const items = guides.map((guide) => (
    <li key={guide.slug}>
      <a href={`/guides/${guide.slug}`}>{guide.title}</a>
      <p>{guide.summary}</p>
    </li>
  ))
  return ordered ? <ol className="guide-list">{items}</ol> : <ul className="guide-list">{items}</ul>
}
