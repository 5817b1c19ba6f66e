import { router as timings } from '../../config/router.ts'
import type { PageAnswer } from '../../site/page-data.ts'
import type { PageKind } from '../../site/page-types.ts'

interface Entry {
  data: Promise<PageAnswer>
  /**
   * When the data was asked for: the server made it then, so its age counts from there (and an answer that arrives
   * late, or while the clock jumps, is not younger than it is).
   */
  requestedAt: number
}

export interface DataCache {
  /** Fresh or in-flight data for `url`, else `fetch()`, shared with whoever asks next while it is fresh. */
  load(url: string, kind: PageKind, fetch: () => Promise<PageAnswer>): Promise<PageAnswer>
  /** Whether `url` has data in flight or fresh: a prefetch then has nothing to do. */
  has(url: string): boolean
  /** Data that arrived another way (the document's own, for the page shown first). */
  put(url: string, kind: PageKind, data: PageAnswer): void
}

const staleAfterMs: Readonly<Record<PageKind, number>> = {
  static: timings.staticStaleTimeS * 1000,
  dynamic: timings.dynamicStaleTimeS * 1000,
}

/**
 * Page data by data URL, each kept as long as its page kind's stale time (300 s static, 0 s dynamic: dynamic data is
 * never reused). In-flight requests are shared; failed ones are dropped, so the next request tries again.
 */
export function createDataCache(): DataCache {
  const entries = new Map<string, Entry>()

  function fresh(url: string): Entry | undefined {
    const entry = entries.get(url)
    if (!entry) return undefined
    if (Date.now() - entry.requestedAt < staleAfterMs.static) return entry
    entries.delete(url)
    return undefined
  }

  return {
    load(url, kind, fetch) {
      const kept = kind === 'static' ? fresh(url) : undefined
      if (kept) return kept.data
      const requestedAt = Date.now()
      const data = fetch()
      if (staleAfterMs[kind] <= 0) return data
      const entry: Entry = { data, requestedAt }
      entries.set(url, entry)
      data.catch(() => {
        if (entries.get(url) === entry) entries.delete(url)
      })
      return data
    },
    has: (url) => fresh(url) !== undefined,
    put(url, kind, data) {
      if (staleAfterMs[kind] > 0) entries.set(url, { data: Promise.resolve(data), requestedAt: Date.now() })
    },
  }
}
