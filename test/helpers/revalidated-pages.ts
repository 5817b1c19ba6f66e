import type { Revalidation, RevalidatedPages } from '../../src/pages/revalidation.ts'

/** The kept pages of one instance as a revalidation reaches them: what it was told to revalidate. */
export function recordedPages(): { pages: RevalidatedPages; revalidated: Revalidation[] } {
  const revalidated: Revalidation[] = []
  const pages: RevalidatedPages = { revalidate: (revalidation) => revalidated.push(revalidation) }
  return { pages, revalidated }
}
