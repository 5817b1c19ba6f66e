/**
 * When partly prerendered documents resume their holes (docs/rendering.md "Partial prerendering"): in the order their
 * shells went out, each turn of the event loop running as many resumes as fit in a small budget of time. Between two
 * turns Node reads the sockets again, so a request that arrives while others' holes render gets its shell within
 * about one budget, not after every render queued before it. A resume's own work (React's first pass, in
 * microtasks, and its first write) stays within its turn.
 *
 * Under overload the queue would grow unseen (each turn short, the event loop never late, load shedding never
 * triggered): once the oldest resume has waited longer than `backlogMs`, a turn runs every resume queued, and the
 * event loop's delay shows the load again.
 */
export interface HoleTurnLimits {
  /** The time a turn spends on resumes before Node reads the sockets again (config/server.ts holeTurnBudgetMs). */
  budgetMs: number
  /** The longest a resume waits before turns stop yielding (config/server.ts holeBacklogMs). */
  backlogMs: number
}

/** Most resumes a turn can hold: the callbacks a turn is given before it knows how many fit. */
const mostPerTurn = 16

export interface HoleTurns {
  /** Runs `resume` on a later turn, after every resume queued before it. */
  enqueue(resume: () => void): void
}

export function createHoleTurns(limits: HoleTurnLimits): HoleTurns {
  const { budgetMs, backlogMs } = limits
  const waiting: Array<{ resume: () => void; queuedAt: number } | undefined> = []
  let head = 0
  // Callbacks of the current turn not run yet, and when the turn's first one ran.
  let callbacks = 0
  let turnStarted = 0
  let drainAll = false

  function runNext(): void {
    callbacks -= 1
    const now = performance.now()
    if (turnStarted === 0) {
      turnStarted = now
      drainAll = head < waiting.length && now - waiting[head]!.queuedAt > backlogMs
    }
    while (head < waiting.length && (drainAll || now - turnStarted <= budgetMs)) {
      const next = waiting[head]!
      waiting[head] = undefined
      head += 1
      if (head === waiting.length) {
        waiting.length = 0
        head = 0
      }
      next.resume()
      // One resume per callback: its render runs in the microtasks that follow this callback. Draining, all at once.
      if (!drainAll) break
    }
    if (callbacks === 0) {
      turnStarted = 0
      scheduleTurn()
    }
  }

  function scheduleTurn(): void {
    callbacks = Math.min(waiting.length - head, mostPerTurn)
    for (let index = 0; index < callbacks; index += 1) setImmediate(runNext)
  }

  return {
    enqueue(resume) {
      waiting.push({ resume, queuedAt: performance.now() })
      if (callbacks === 0) scheduleTurn()
      // A turn scheduled but not started yet takes it too: resumes queued in one tick share a turn, whatever the time
      // the event loop takes to reach it (a timer due by then would otherwise run between them).
      else if (turnStarted === 0 && callbacks < mostPerTurn) {
        callbacks += 1
        setImmediate(runNext)
      }
    },
  }
}
