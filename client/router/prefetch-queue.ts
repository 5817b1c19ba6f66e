import { router as timings } from '../../config/router.ts'

interface NetworkInformation {
  saveData?: boolean
}

/**
 * The visitor asked to save data (Save-Data, docs/page-data-and-router.md "The client router"): no speculative requests
 * at all.
 */
export function savesData(): boolean {
  return (navigator as Navigator & { connection?: NetworkInformation }).connection?.saveData === true
}

export interface PrefetchQueue {
  /** Runs `task` under `key` unless that key is queued or running already. */
  push(key: string, task: () => Promise<unknown>): void
}

/**
 * One queue for every prefetch, `prefetchConcurrency` (5) at a time. A key is queued once until its task settles: a
 * failed prefetch leaves nothing behind, so a later hover or scroll tries again. `onBusy` hears `true` when the queue
 * takes work while it had none, `false` when its last task has settled.
 */
export function createPrefetchQueue(
  concurrency: number = timings.prefetchConcurrency,
  onBusy: (busy: boolean) => void = () => undefined,
): PrefetchQueue {
  const waiting: Array<[string, () => Promise<unknown>]> = []
  const known = new Set<string>()
  let running = 0

  function next(): void {
    while (running < concurrency && waiting.length > 0) {
      const [key, task] = waiting.shift()!
      running += 1
      const settle = () => {
        running -= 1
        known.delete(key)
        next()
        if (known.size === 0) onBusy(false)
      }
      // A failed prefetch is only a missed optimisation: the navigation fetches again and reports its own failure.
      task().then(settle, settle)
    }
  }

  return {
    push(key, task) {
      if (known.has(key)) return
      if (known.size === 0) onBusy(true)
      known.add(key)
      waiting.push([key, task])
      next()
    },
  }
}
