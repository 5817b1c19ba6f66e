import type { PageDefinition, RouteParams } from '../routes.ts'

/** A page of the table matched to a pathname, with its parameters decoded. */
export interface PageMatch {
  page: PageDefinition
  params: RouteParams
}

/**
 * Matches a pathname against the page table's patterns (`/guides/:slug`): whole segments, `:name` takes one
 * non-empty segment, a trailing slash is ignored as the server's router ignores it. The server's page-data route and
 * the client router share it, so both agree on which page a URL is.
 */
export function matchPage(pages: readonly PageDefinition[], pathname: string): PageMatch | undefined {
  const segments = split(pathname)
  for (const page of pages) {
    const pattern = split(page.path)
    if (pattern.length !== segments.length) continue
    const params: Record<string, string> = {}
    let matched = true
    for (let index = 0; matched && index < pattern.length; index++) {
      const part = pattern[index]!
      const segment = segments[index]!
      if (part.charAt(0) === ':') params[part.slice(1)] = decode(segment)
      else matched = part === segment
    }
    if (matched) return { page, params }
  }
  return undefined
}

function split(pathname: string): string[] {
  return pathname.split('/').filter((segment) => segment !== '')
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    // A malformed escape stays as written: the page's loader then finds nothing by it.
    return segment
  }
}
