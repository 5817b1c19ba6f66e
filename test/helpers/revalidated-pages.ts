import type { Revalidation, RevalidatedPages, RevalidationMessage } from '../../src/pages/revalidation.ts'

/** The kept pages of one instance as a revalidation reaches them: what it was told to revalidate and regenerate. */
export function recordedPages(): {
  pages: RevalidatedPages
  revalidated: Revalidation[]
  regenerated: RevalidationMessage[]
} {
  const revalidated: Revalidation[] = []
  const regenerated: RevalidationMessage[] = []
  const pages: RevalidatedPages = {
    revalidate: (revalidation) => revalidated.push(revalidation),
    regenerateNow: async (message) => regenerated.push(message),
  }
  return { pages, revalidated, regenerated }
}
