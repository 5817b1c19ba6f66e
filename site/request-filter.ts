/**
 * The site's own part of the request filter (docs/request-filter.md): its redirects, and its steps, run in order after
 * Courier's built-in ones on every page and its data. Courier reads this file by convention (src/app.ts).
 */
import type { SiteRedirect } from '../config/request-filter.ts'
import type { PolicyStep } from '../src/site-policy.ts'
import { pageRequestOf } from '../src/pages/page-request.ts'

/** The old singular guide URLs. The query string is carried over. */
export const redirects: readonly SiteRedirect[] = [
  { from: '/guide/:slug', to: '/guides/:slug', permanent: true },
  { from: '/guide', to: '/guides', permanent: true },
]

/** Pages under /account are for signed-in visitors: anyone else goes to the sign-in page, and back after it. */
const requireSignIn: PolicyStep = async function requireSignIn(request, target) {
  if (target.pathname !== '/account' && !target.pathname.startsWith('/account/')) return { action: 'continue' }
  if ((await pageRequestOf(request).session.userId()) !== undefined) return { action: 'continue' }
  return { action: 'redirect', location: `/sign-in?next=${encodeURIComponent(target.pathname)}`, permanent: false }
}

export const steps: readonly PolicyStep[] = [requireSignIn]
