import cluster, { type Worker } from 'node:cluster'
import type { Logger } from 'pino'
import { clusterLimits } from '../config/cluster.ts'
import { serverLimits } from '../config/server.ts'
import { relayRevalidations } from './shared-state/cluster-revalidation.ts'

export interface PrimaryOptions {
  /** How many workers to keep running (WEB_CONCURRENCY). */
  workers: number
  logger: Logger
  /** Overrides of config/cluster.ts (tests shorten the back-off). */
  limits?: Partial<typeof clusterLimits>
}

/**
 * The primary of `WEB_CONCURRENCY=N` (docs/running-at-scale.md "All cores of one machine: `WEB_CONCURRENCY`"): it
 * serves nothing itself, it forks N workers that each run the whole server (src/server.ts) on the one shared port
 * (node:cluster hands connections out in turn), and keeps N running: a worker that dies is replaced after a back-off,
 * with a warn line. It passes each revalidation a worker takes on to the others
 * (src/shared-state/cluster-revalidation.ts). SIGTERM drains every worker as one process drains (each finishes its
 * requests in flight within its grace period), then the primary exits. Resolves with the exit code once every worker is
 * gone after a signal.
 */
export function runPrimary(options: PrimaryOptions): Promise<number> {
  const { workers, logger } = options
  const limits = { ...clusterLimits, ...options.limits }
  const recentDeaths: number[] = []
  let stopping = false
  let failedExits = 0
  const pendingRestarts = new Set<NodeJS.Timeout>()

  function fork(): Worker {
    const worker = cluster.fork()
    worker.once('online', () => logger.info({ workerPid: worker.process.pid, workerId: worker.id }, 'worker started'))
    return worker
  }

  /** The delay before the next replacement: the base doubled for each death in the crash window. */
  function restartDelay(now: number): number {
    while (recentDeaths.length > 0 && recentDeaths[0]! <= now - limits.crashWindowMs) recentDeaths.shift()
    recentDeaths.push(now)
    return Math.min(limits.restartBaseDelayMs * 2 ** (recentDeaths.length - 1), limits.restartMaxDelayMs)
  }

  return new Promise<number>((resolve) => {
    cluster.on('exit', function replaceWorker(worker, code, signal) {
      const workerPid = worker.process.pid
      if (stopping) {
        if (code !== 0) failedExits += 1
        logger.info({ workerPid, code, signal }, 'worker exited')
        if (Object.keys(cluster.workers ?? {}).length === 0) {
          logger.info({ failedExits }, 'all workers exited')
          resolve(failedExits === 0 ? 0 : 1)
        }
        return
      }
      const restartInMs = restartDelay(Date.now())
      logger.warn({ workerPid, code, signal, restartInMs }, 'worker died: replacing it')
      const timer = setTimeout(() => {
        pendingRestarts.delete(timer)
        if (!stopping) fork()
      }, restartInMs)
      pendingRestarts.add(timer)
    })

    function stop(signal: NodeJS.Signals) {
      const running = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined)
      if (stopping) {
        logger.warn({ signal }, 'second signal: stopping workers at once')
        for (const worker of running) worker.process.kill('SIGKILL')
        return
      }
      stopping = true
      for (const timer of pendingRestarts) clearTimeout(timer)
      logger.info({ signal, workers: running.length }, 'closing: draining every worker')
      if (running.length === 0) return resolve(0)
      const forward = () => {
        for (const worker of running) if (!worker.isDead()) worker.process.kill('SIGTERM')
      }
      // A terminal's Ctrl+C already reached each worker (same process group): sending it again would count as their
      // second signal and cut their drain short.
      if (signal === 'SIGINT') setTimeout(forward, limits.interruptForwardDelayMs).unref()
      else forward()
      setTimeout(() => {
        for (const worker of running) {
          if (worker.isDead()) continue
          logger.error({ workerPid: worker.process.pid }, 'worker still running after the grace period: killing it')
          worker.process.kill('SIGKILL')
        }
      }, serverLimits.shutdownGraceMs + limits.drainMarginMs).unref()
    }
    process.on('SIGTERM', stop)
    process.on('SIGINT', stop)

    // Without Redis, a revalidation one worker takes reaches the others through here.
    relayRevalidations()
    logger.info({ workers }, 'starting workers')
    for (let index = 0; index < workers; index += 1) fork()
  })
}
