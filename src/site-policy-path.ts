/**
 * Which pathname the request filter judges: the one Fastify's router (find-my-way, ignoreTrailingSlash on, case
 * sensitive, no duplicate-slash merging, `;` not a delimiter) matches, read the same way, plus the page path of a
 * page-data URL. Forms the router reads differently from a browser, or that a later layer might resolve on its own
 * (dot segments, empty segments, encoded slashes, backslashes, control characters, request targets that are neither a
 * path nor an http(s) URL) are refused: no browser sends them, and refusing them is the only way to be sure that the
 * filter's decision and the route's never disagree.
 */
import { filterExclusions } from '../config/request-filter.ts'
import { excludedByName } from './common/filter-exclusions.ts'
import { compilePattern } from './common/match.ts'
import { pageDataPrefix, readDataFile } from './common/page-data.ts'

export type PathJudgement =
  /**
   * `pathname`: the decoded page path judged (for a data URL, its page's); `pageData`: a page-data URL.
   */
  | { kind: 'path'; pathname: string; pageData: boolean }
  /** `reason`: why the target is refused (for the log). */
  | { kind: 'invalid'; reason: string }

/** `/_next/data`: the data URL's prefix without its trailing slash, as a pathname may end there. */
const dataPath = pageDataPrefix.slice(0, -1)

/** `%2F` `%5C` (encoded slashes: a param decodes them into a path), `%00`-`%1F` and `%7F` (control characters). */
const forbiddenEscape = /%(?:2f|5c|[01][0-9a-f]|7f)/i
/** A backslash or a control character, raw. */
const forbiddenCharacter = /[\\\u0000-\u001f\u007f]/
const absoluteForm = /^https?:\/\//i

function invalid(reason: string): PathJudgement {
  return { kind: 'invalid', reason }
}

/**
 * find-my-way's reading of an absolute-form target (`http://host/path?query`): the path after the authority, `/`
 * when there is none; a `#` after the scheme makes it a bad URL. Null: not a target the router reads as a path.
 */
function pathOfAbsoluteForm(target: string): string | null {
  const authorityStart = target.indexOf('://') + 3
  if (target.includes('#', authorityStart)) return null
  const slash = target.indexOf('/', authorityStart)
  const question = target.indexOf('?', authorityStart)
  const authorityEnd =
    slash === -1 ? (question === -1 ? target.length : question) : question !== -1 && question < slash ? question : slash
  if (authorityEnd === authorityStart) return null
  if (authorityEnd === target.length) return '/'
  return authorityEnd === question ? '/' + target.slice(question) : target.slice(slash)
}

/**
 * The decoded, normalised pathname of a raw request target (`request.url`) as the router matches it, or why it is
 * refused. Cheap on the usual path (no `%`, no dot segment): a few scans, no allocation beyond the slice.
 */
export function judgePath(rawUrl: string): PathJudgement {
  let target = rawUrl
  if (target.charCodeAt(0) !== 47 /* / */) {
    // The router strips the scheme and authority of an absolute-form target, and reads any other target with its first
    // character taken for `/` (`*faq` routes to /faq): only the first is a request a client means.
    const path = absoluteForm.test(target) ? pathOfAbsoluteForm(target) : null
    if (path === null) return invalid('request target is neither a path nor an http(s) URL')
    target = path
  }
  let end = target.length
  for (let index = 1; index < end; index++) {
    const code = target.charCodeAt(index)
    if (code === 63 /* ? */ || code === 35 /* # */) end = index
  }
  let pathname = end === target.length ? target : target.slice(0, end)
  if (pathname.includes('%')) {
    if (forbiddenEscape.test(pathname)) return invalid('encoded slash or control character in the path')
    try {
      // What the router decodes: every escape but the reserved characters (kept encoded in the path); `%25` stays
      // `%25`.
      pathname = decodeURI(pathname.replaceAll('%25', '%2525'))
    } catch {
      return invalid('malformed percent-encoding in the path')
    }
  }
  if (forbiddenCharacter.test(pathname)) return invalid('backslash or control character in the path')
  if (pathname.includes('//')) return invalid('empty path segment')
  // ignoreTrailingSlash: the router drops one trailing slash, no more.
  if (pathname.length > 1 && pathname.charCodeAt(pathname.length - 1) === 47) pathname = pathname.slice(0, -1)
  if (pathname.includes('/.')) {
    for (const segment of pathname.split('/')) {
      if (segment === '.' || segment === '..') return invalid('dot segment in the path')
    }
  }
  if (
    pathname.startsWith(dataPath) &&
    (pathname.length === dataPath.length || pathname.charCodeAt(dataPath.length) === 47)
  ) {
    // `/_next/data/<id>/<page path>.json`. Without a page path it names no page: judged as `/`, filtered, never
    // excluded, whatever the page-data route makes of it.
    const rest = pathname.split('/').slice(4).join('/')
    return { kind: 'path', pathname: rest ? readDataFile(rest).pagePath : '/', pageData: true }
  }
  return { kind: 'path', pathname, pageData: false }
}

export type ExclusionMatcher = (pathname: string) => boolean

/**
 * Compiles the exclusion list of config/request-filter.ts once: whole segments, case-sensitive like the router.
 * The rules that match by shape (image extensions, sitemap files) yield to the site's pages: a page such as
 * `/guides/:slug` matches `/guides/a.png` too, and a page never goes without the filter unless it is named.
 */
export function compileExclusions(pagePatterns: readonly string[]): ExclusionMatcher {
  const { sitemapFile, imageExtensions, exactPaths } = filterExclusions
  const pages = pagePatterns.filter((pattern) => !exactPaths.includes(pattern)).map(compilePattern)
  const isPage = (pathname: string) => pages.some((matches) => matches(pathname) !== undefined)

  return function isExcluded(pathname) {
    if (excludedByName(pathname)) return true
    const lastSegment = pathname.slice(pathname.lastIndexOf('/') + 1)
    if (!lastSegment.includes('.')) return false
    const byShape = sitemapFile.test(pathname) || imageExtensions.some((extension) => lastSegment.endsWith(extension))
    return byShape && !isPage(pathname)
  }
}
