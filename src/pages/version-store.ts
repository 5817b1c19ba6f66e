import type { PageMatch } from '../common/match.ts'
import type { ServerPage } from './site.ts'
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

/**
 * Which version of which `static` page instance is current in this process, and nothing else: no loader runs here.
 * At most `maxEntries` instances have a version (config/server.ts); a revalidation asks which of them it names.
 */
export class PageVersionStore {
  readonly maxEntries: number
  readonly #current = new Map<string, CurrentVersion>()

  constructor(maxEntries: number) {
    this.maxEntries = maxEntries
  }

  /** How many page instances have a current version. */
  get size(): number {
    return this.#current.size
  }

  get(key: string): CurrentVersion | undefined {
    return this.#current.get(key)
  }

  /** Makes `version` current for its page instance. */
  set(version: PageVersion, match: PageMatch<ServerPage>): void {
    this.#current.set(version.key, { version, match })
  }

  /** The page instance has no version any more (its loader said not found). */
  delete(key: string): void {
    this.#current.delete(key)
  }

  /** Whether `version` is the current one of its page instance (a replaced one, or one past the bound, is not). */
  isCurrent(version: PageVersion): boolean {
    return this.#current.get(version.key)?.version === version
  }

  /**
   * The instances a revalidation names: at one of its paths (`matchPage` reads them as the routes do), or carrying
   * one of its tags; `everything`: every instance with a version.
   */
  named(
    request: RevalidationRequest | 'everything',
    matchPage: (pathname: string) => PageMatch<ServerPage> | undefined,
  ): Map<string, { reason: RegenerationReason; current: CurrentVersion }> {
    const named = new Map<string, { reason: RegenerationReason; current: CurrentVersion }>()
    if (request === 'everything') {
      for (const [key, current] of this.#current) named.set(key, { reason: 'path', current })
      return named
    }
    for (const path of request.paths) {
      const match = matchPage(path)
      const key = match && pageKey(match)
      const current = key === undefined ? undefined : this.#current.get(key)
      if (key !== undefined && current) named.set(key, { reason: 'path', current })
    }
    if (request.tags.length === 0) return named
    for (const [key, current] of this.#current) {
      if (!named.has(key) && current.version.tags.some((tag) => request.tags.includes(tag))) {
        named.set(key, { reason: 'tag', current })
      }
    }
    return named
  }
}
