import type { RouteParams } from './page-types.ts'

/** A page of the table matched to a pathname, with its parameters decoded. */
export interface PageMatch<Page extends { path: string }> {
  page: Page
  params: RouteParams
}

/** A compiled router pattern: the parameters of a matching pathname as written in it (not decoded), or undefined. */
export type PatternMatcher = (pathname: string) => Record<string, string> | undefined

/**
 * Compiles one router pattern (`/guides/:slug`), matched by whole segments: `:name` takes one non-empty segment,
 * literal parts must be equal, a trailing slash is ignored as the server's router ignores it. The request filter's
 * redirects and exclusions, the server's page routes and the client router all use it, so they agree on which
 * page a URL is.
 */
export function compilePattern(pattern: string): PatternMatcher {
  const parts = split(pattern)
  return function matchPattern(pathname) {
    const segments = split(pathname)
    if (parts.length !== segments.length) return undefined
    const params: Record<string, string> = {}
    for (let index = 0; index < parts.length; index++) {
      const part = parts[index]!
      const segment = segments[index]!
      if (part.charAt(0) === ':') params[part.slice(1)] = segment
      else if (part !== segment) return undefined
    }
    return params
  }
}

/**
 * The page table as one matcher, compiled once: the first page whose pattern matches `pathname`, with its
 * parameters decoded.
 */
export function createPageMatcher<Page extends { path: string }>(
  pages: readonly Page[],
): (pathname: string) => PageMatch<Page> | undefined {
  const compiled = pages.map((page) => ({ page, match: compilePattern(page.path) }))
  return function matchPage(pathname) {
    for (const { page, match } of compiled) {
      const written = match(pathname)
      if (!written) continue
      const params: Record<string, string> = {}
      for (const name of Object.keys(written)) params[name] = decode(written[name]!)
      return { page, params }
    }
    return undefined
  }
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
