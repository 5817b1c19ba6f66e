/**
 * The site's own part of the request filter (docs/request-filter.md): its redirects, and its steps, run in order after
 * Courier's built-in ones on every page and its data. Courier reads this file by convention (src/app.ts).
 */
import type { SiteRedirect } from '../config/request-filter.ts'
import type { PolicyStep } from '../src/site-policy.ts'

/** The old singular guide URLs. The query string is carried over. */
export const redirects: readonly SiteRedirect[] = [
  { from: '/guide/:slug', to: '/guides/:slug', permanent: true },
  { from: '/guide', to: '/guides', permanent: true },
]

export const steps: readonly PolicyStep[] = []
