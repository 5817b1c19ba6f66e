/**
 * The site's own part of the request filter (docs/request-filter.md): its redirects, and its steps, run in order after
 * Courier's built-in ones on every page and its data. Courier reads this file by convention (src/app.ts).
 */
import type { SiteRedirect } from '../config/request-filter.ts'
import { proceed, type PolicyStep } from '../src/site-policy.ts'
import { pageRequestOf } from '../src/pages/page-request.ts'

/** The old singular guide URLs. The query string is carried over. */
export const redirects: readonly SiteRedirect[] = [
  { from: '/guide/:slug', to: '/guides/:slug', permanent: true },
  { from: '/guide', to: '/guides', permanent: true },
]

/** Whether a page is for signed-in visitors only. */
const isMembersOnly = (pathname: string) => pathname === '/account' || pathname.startsWith('/account/')

/**
 * Pages under /account are for signed-in visitors: anyone else goes to the sign-in page, and back after it. Every other
 * page passes at once, without a promise: the step runs on every page request.
 */
const requireSignIn: PolicyStep = function requireSignIn(request, target) {
  if (!isMembersOnly(target.pathname)) return proceed
  return pageRequestOf(request)
    .session.userId()
    .then((userId) =>
      userId !== undefined
        ? proceed
        : {
            action: 'redirect' as const,
            location: `/sign-in?next=${encodeURIComponent(target.pathname)}`,
            permanent: false,
          },
    )
}

export const steps: readonly PolicyStep[] = [requireSignIn]
