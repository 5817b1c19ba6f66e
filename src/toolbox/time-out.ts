export interface TimeOutOptions {
  /**
   * A timer that fires far later than due (over 1.5x) says this process was held up (a long synchronous job, a machine
   * out of CPU), not the work: the work then gets its time once more, from then. And the time-out waits one turn of
   * the event loop, since Node runs due timers before the callbacks of I/O that finished meanwhile: that answer wins.
   * For work outside the process (the file system); a loader's own code has no such excuse.
   */
  forgiveLateTimer?: boolean
  /** Whether the timer may hold the process open (a request's socket already does; a time-out alone need not). */
  ref?: boolean
  /** Told once, when the time-out wins (a count of stuck work, say); never when the work settles first. */
  onTimeOut?: () => void
}

/**
 * `work`, failed with `timedOut()` when it has not settled within `ms` (not finite: never). The work itself goes on
 * (a promise cannot be stopped): a caller that holds a resource for it keeps it until `work` settles. Its later
 * failure is already told as the time-out, so it is not reported again.
 */
export function withTimeOut<T>(
  work: Promise<T>,
  ms: number,
  timedOut: () => Error,
  options: TimeOutOptions = {},
): Promise<T> {
  if (!Number.isFinite(ms)) return work
  const { forgiveLateTimer = false, ref = true, onTimeOut } = options
  let settled = false
  let timer: NodeJS.Timeout | undefined
  const watched = work.finally(() => {
    settled = true
    clearTimeout(timer)
  })
  watched.catch(() => undefined)
  const timeOut = new Promise<never>((_resolve, reject) => {
    const startedAt = performance.now()
    let forgiven = !forgiveLateTimer
    const expire = () => {
      if (settled) return
      if (!forgiven && performance.now() - startedAt > ms * 1.5) {
        forgiven = true
        arm()
        return
      }
      const fail = () => {
        if (settled) return
        onTimeOut?.()
        reject(timedOut())
      }
      if (forgiveLateTimer) setImmediate(fail)
      else fail()
    }
    const arm = () => {
      timer = setTimeout(expire, ms)
      if (!ref) timer.unref()
    }
    arm()
  })
  timeOut.catch(() => undefined)
  return Promise.race([watched, timeOut])
}
