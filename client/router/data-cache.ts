import { router as timings } from '../../config/router.ts'
import type { PageAnswer } from '../../src/common/page-data.ts'
import type { PageDefinition } from '../../src/common/page-types.ts'

/** What the cache needs of a page: its kind and its `revalidate`. */
export type DataFreshness = Pick<PageDefinition, 'kind' | 'revalidate'>

interface Entry {
  data: Promise<PageAnswer>
  /**
   * When the data was asked for: the server made it then, so its age counts from there (and an answer that arrives
   * late, or while the clock jumps, is not younger than it is).
   */
  requestedAt: number
  /** How long it is kept: its page's stale time. */
  keepMs: number
  /** Whether it is being asked for again behind a navigation that showed it. */
  refreshing?: boolean
}

export interface DataCache {
  /**
   * Fresh or in-flight data for `url`, else `fetch()`, shared with whoever asks next while it is fresh. Kept data of
   * a page with `revalidate` older than a few seconds is asked for again behind the answer.
   */
  load(url: string, page: DataFreshness, fetch: () => Promise<PageAnswer>): Promise<PageAnswer>
  /** Whether `url` has data in flight or fresh: a prefetch then has nothing to do. */
  has(url: string): boolean
  /** Data that arrived another way (the document's own, for the page shown first). */
  put(url: string, page: DataFreshness, data: PageAnswer): void
  /** Forgets everything: after a form's action, any page's data may have changed (a sign-out, say). */
  clear(): void
}

/** A page's stale time: 300 s static (at most its `revalidate`), 0 s dynamic (dynamic data is never reused). */
function keepMsOf(page: DataFreshness): number {
  if (page.kind === 'dynamic') return timings.dynamicStaleTimeS * 1000
  return Math.min(timings.staticStaleTimeS, page.revalidate ?? Number.POSITIVE_INFINITY) * 1000
}

/**
 * Page data by data URL, each kept as long as its page's stale time (docs/page-data-and-router.md "The client
 * router"). In-flight requests are shared; failed ones are dropped, so the next request tries again.
 */
export function createDataCache(): DataCache {
  const entries = new Map<string, Entry>()

  function fresh(url: string): Entry | undefined {
    const entry = entries.get(url)
    if (!entry) return undefined
    if (Date.now() - entry.requestedAt < entry.keepMs) return entry
    entries.delete(url)
    return undefined
  }

  function keep(url: string, data: Promise<PageAnswer>, keepMs: number): void {
    const entry: Entry = { data, requestedAt: Date.now(), keepMs }
    entries.set(url, entry)
    data.catch(() => {
      if (entries.get(url) === entry) entries.delete(url)
    })
  }

  /** Asks again behind a navigation: the answer replaces the kept data once it is in; a failure keeps it. */
  function refresh(url: string, kept: Entry, fetch: () => Promise<PageAnswer>): void {
    kept.refreshing = true
    const requestedAt = Date.now()
    fetch().then(
      (answer) => {
        if (entries.get(url) === kept) {
          entries.set(url, { data: Promise.resolve(answer), requestedAt, keepMs: kept.keepMs })
        }
      },
      () => (kept.refreshing = false),
    )
  }

  return {
    load(url, page, fetch) {
      const kept = page.kind === 'static' ? fresh(url) : undefined
      if (kept) {
        const age = Date.now() - kept.requestedAt
        if (page.revalidate !== undefined && !kept.refreshing && age >= timings.revalidatingRefreshAfterS * 1000) {
          refresh(url, kept, fetch)
        }
        return kept.data
      }
      const data = fetch()
      const keepMs = keepMsOf(page)
      if (keepMs > 0) keep(url, data, keepMs)
      return data
    },
    has: (url) => fresh(url) !== undefined,
    put(url, page, data) {
      const keepMs = keepMsOf(page)
      if (keepMs > 0) keep(url, Promise.resolve(data), keepMs)
    },
    clear: () => entries.clear(),
  }
}
