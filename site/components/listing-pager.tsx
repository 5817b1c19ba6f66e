import { Link } from '../../client/components/link.tsx'

/** The path of page `page` of the list of guides: the first is `/guides`, the others `/guides/page/<n>`. */
export function listingPath(page: number): string {
  return page === 1 ? '/guides' : `/guides/page/${page}`
}

/** Links to the pages before and after one page of the list of guides, and where it stands. */
export function ListingPager({ page, pages }: { page: number; pages: number }) {
  if (pages <= 1) return null
  return (
    <nav className="pager" aria-label="Pages of guides">
      {page > 1 ? <Link href={listingPath(page - 1)}>← Page {page - 1}</Link> : <span />}
      <span>
        Page {page} of {pages}
      </span>
      {page < pages ? <Link href={listingPath(page + 1)}>Page {page + 1} →</Link> : <span />}
    </nav>
  )
}
