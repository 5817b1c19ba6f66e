import { filterExclusions } from '../../config/request-filter.ts'

const firstSegments = new Set<string>(filterExclusions.firstSegments)
const exactPaths = new Set(
  filterExclusions.exactPaths.map((path) => (path.length > 1 ? path.replace(/\/$/, '') : path)),
)

/**
 * Whether the request filter leaves `pathname` out by name (config/request-filter.ts): one of its exact paths (a
 * trailing slash ignored, as the server's router ignores it) or a path under one of its first segments. The rules by
 * shape (image extensions, sitemap files) are the caller's: the server lets a page's path win over them. Shared by the
 * request filter and the client router, so both agree on what the filter never judges.
 */
export function excludedByName(pathname: string): boolean {
  const last = pathname.length - 1
  if (exactPaths.has(last > 0 && pathname.charCodeAt(last) === 47 ? pathname.slice(0, last) : pathname)) return true
  const secondSlash = pathname.indexOf('/', 1)
  return firstSegments.has(secondSlash === -1 ? pathname.slice(1) : pathname.slice(1, secondSlash))
}
