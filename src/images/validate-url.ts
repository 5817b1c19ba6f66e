import { errors } from '../errors.ts'

/** Where the optimizer answers; a `url` pointing here again (in any spelling) is refused. */
export const optimizerPath = '/_next/image'

export type ImageSource =
  | {
      kind: 'local'
      /** Decoded path under the public folder, always starting with `/`, no repeated slashes. */
      path: string
    }
  | { kind: 'remote'; url: URL }
  | {
      kind: 'content'
      /** `/content/images/<name>`: an image of CONTENT_DIR (docs/content.md "Images of the content"). */
      path: string
      /** Read when the request came: the file may change at any time, and its variants with it. */
      bytes: Buffer
      /** Of the bytes: part of the cache key, so a replaced file is never answered with the old one's variants. */
      hash: string
    }

/** Percent-decodes until nothing changes (at most 3 rounds), so `%252e` cannot hide a `.` from the checks below. */
function decodeFully(text: string): string {
  let current = text
  for (let round = 0; round < 3; round += 1) {
    let next: string
    try {
      next = decodeURIComponent(current)
    } catch {
      throw new errors.ImageUrlRefused('url holds a malformed percent-escape')
    }
    if (next === current) return current
    current = next
  }
  return current
}

function pointsAtOptimizer(decodedPath: string): boolean {
  const normalized = decodedPath.toLowerCase().replace(/\/{2,}/g, '/')
  return (
    normalized === optimizerPath ||
    normalized.startsWith(`${optimizerPath}/`) ||
    normalized.startsWith(`${optimizerPath}?`)
  )
}

/** Refuses `..`, `.`, dotfiles, backslashes and control characters in a decoded local path. */
function checkLocalPath(decodedPath: string): void {
  if (/[\\\u0000-\u001f\u007f]/.test(decodedPath)) {
    throw new errors.ImageUrlRefused('url must not hold backslashes or control characters')
  }
  for (const segment of decodedPath.split('/').slice(1)) {
    if (segment === '..' || segment === '.') {
      throw new errors.ImageUrlRefused('url must not traverse out of the public folder')
    }
    if (segment.startsWith('.')) throw new errors.ImageUrlRefused('url must not name a hidden file')
  }
}

/**
 * Decides what a `url` parameter names, or throws a coded 400 naming the problem. Local paths start with a single
 * `/`; absolute URLs must be http(s) and from one of `remoteOrigins` (scheme, host and port exactly).
 */
export function parseImageUrl(url: string, remoteOrigins: ReadonlySet<string>): ImageSource {
  if (url.startsWith('//') || url.startsWith('/\\')) {
    throw new errors.ImageUrlRefused('url must not be protocol-relative (//host): use a local path or an absolute URL')
  }
  if (url.startsWith('/')) {
    const [rawPath = ''] = url.split(/[?#]/, 1)
    const decoded = decodeFully(rawPath)
    if (pointsAtOptimizer(decoded)) throw new errors.ImageUrlRefused('url must not point at the image optimizer itself')
    // A local file has no query or fragment: each would be one more cache entry (and transform) of the same file.
    // Refused as Next.js refuses a query outside `images.localPatterns`.
    if (rawPath !== url) {
      throw new errors.ImageUrlRefused('url must not carry a query (?) or fragment (#): a local image is one file')
    }
    checkLocalPath(decoded)
    // Repeated slashes name the same file: one spelling, so one cache key.
    return { kind: 'local', path: decoded.replace(/\/{2,}/g, '/') }
  }
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new errors.ImageUrlRefused('url must be a local path starting with / or an absolute http(s) URL')
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new errors.ImageUrlRefused(`url must use http or https, not ${parsed.protocol.slice(0, -1).slice(0, 20)}`)
  }
  if (parsed.username || parsed.password) throw new errors.ImageUrlRefused('url must not carry credentials')
  if (pointsAtOptimizer(decodeFully(parsed.pathname))) {
    throw new errors.ImageUrlRefused('url must not point at the image optimizer itself')
  }
  if (!remoteOrigins.has(parsed.origin)) {
    throw new errors.ImageUrlRefused(`url host ${parsed.host} is not in the allow-list of remote image origins`)
  }
  return { kind: 'remote', url: parsed }
}

/** The allow-list as a set of normalized origins; an entry that is not an http(s) origin is a configuration error. */
export function compileRemoteOrigins(origins: readonly string[]): ReadonlySet<string> {
  const compiled = new Set<string>()
  for (const origin of origins) {
    let parsed: URL
    try {
      parsed = new URL(origin)
    } catch {
      throw new errors.OptionInvalid('remoteOrigins', `${JSON.stringify(origin)} is not a URL`)
    }
    if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.origin !== origin.replace(/\/$/, '')) {
      throw new errors.OptionInvalid(
        'remoteOrigins',
        `${JSON.stringify(origin)} must be an http(s) origin like https://host`,
      )
    }
    compiled.add(parsed.origin)
  }
  return compiled
}
