import { filterExclusions } from '../../config/request-filter.ts'
import { excludedByName } from '../../src/common/filter-exclusions.ts'

/**
 * Whether a path of this site that no page matches may still be one the site policy redirects (a redirect of
 * config/request-filter.ts, or a step of the site's own): then the router asks its page data, which answers
 * `{ redirect }` (followed without a full load) or a 404 (a full load, as before). Paths the request filter never
 * judges (its exclusions) and paths of files (a dot in the last segment) are the browser's to load.
 */
export function mayBeRedirected(pathname: string): boolean {
  if (excludedByName(pathname) || filterExclusions.sitemapFile.test(pathname)) return false
  return !pathname.slice(pathname.lastIndexOf('/') + 1).includes('.')
}
