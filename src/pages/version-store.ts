import type { PageMatch } from '../common/match.ts'
import type { ServerPage } from './site.ts'
import { BoundedCache } from '../bounded-cache.ts'
import { pageKey, type PageVersion } from './page-version.ts'

/** A current version with the match it was loaded for (its page and parameters). */
export interface CurrentVersion {
  version: PageVersion
  match: PageMatch<ServerPage>
}

/** What a revalidation names: paths (read as the server's routes read them) and tags. */
export interface RevalidationRequest {
  paths: readonly string[]
  tags: readonly string[]
}

/** Why a kept page is loaded again: its time ran out, or a revalidation named its path or one of its tags. */
export type RegenerationReason = 'time' | 'path' | 'tag'

/** How many page instances, and how many bytes of them, a store keeps (config/server.ts). */
export interface VersionStoreBounds {
  maxEntries: number
  maxBytes: number
}

/**
 * What a kept version holds, estimated: its page data as sent (a one-byte string: its length), the compressed codings
 * of it and the document rendered once from it, which together measured about three times the page data, and a
 * kilobyte for the objects around them.
 */
export function keptVersionBytes({ version }: CurrentVersion): number {
  return version.data.body.length * 4 + 1024
}

/**
 * Which version of which `static` page instance is current in this process, and nothing else: no loader runs here.
 * Bounded by count and by bytes (config/server.ts): past either, the least recently asked-for instance goes (its
 * document with it), and is loaded again when next asked for. Reading an entry makes it the most recently used;
 * `peek` (whether a version is still the current one) does not.
 */
export type KeptVersions = BoundedCache<string, CurrentVersion>

/** The kept versions within `bounds`; `onEvict` is told of each instance the bounds push out. */
export function keptVersions(
  bounds: VersionStoreBounds,
  onEvict?: (key: string, current: CurrentVersion) => void,
): KeptVersions {
  return new BoundedCache(bounds, keptVersionBytes, onEvict)
}

/**
 * The kept instances a revalidation names: at one of its paths (`matchPage` reads them as the routes do), or carrying
 * one of its tags; `everything`: every kept instance.
 */
export function namedVersions(
  kept: KeptVersions,
  request: RevalidationRequest | 'everything',
  matchPage: (pathname: string) => PageMatch<ServerPage> | undefined,
): Map<string, { reason: RegenerationReason; current: CurrentVersion }> {
  const named = new Map<string, { reason: RegenerationReason; current: CurrentVersion }>()
  if (request === 'everything') {
    for (const [key, current] of kept.entries()) named.set(key, { reason: 'path', current })
    return named
  }
  for (const path of request.paths) {
    const match = matchPage(path)
    const key = match && pageKey(match)
    const current = key === undefined ? undefined : kept.peek(key)
    if (key !== undefined && current) named.set(key, { reason: 'path', current })
  }
  if (request.tags.length === 0) return named
  for (const [key, current] of kept.entries()) {
    if (!named.has(key) && current.version.tags.some((tag) => request.tags.includes(tag))) {
      named.set(key, { reason: 'tag', current })
    }
  }
  return named
}
