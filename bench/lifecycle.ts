import { constants } from 'node:os'
import { stopLoad } from './load.ts'
import { killAllNow, stopAll } from './processes.ts'

/**
 * Runs a bench's `main` so that however it ends, its servers end with it: signals stop the load and the servers
 * gracefully, the exit event kills stragglers, and a failure is told through `progress` and exits 1.
 */
export async function runBench(main: () => Promise<void>, progress: (message: string) => void): Promise<void> {
  process.once('exit', killAllNow)
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, function stopOnSignal() {
      progress(`${signal}: stopping`)
      stopLoad()
      stopAll().finally(() => process.exit(128 + constants.signals[signal]))
    })
  }
  try {
    await main()
  } catch (error) {
    progress(`failed: ${(error as Error)?.stack ?? String(error)}`)
    stopLoad()
    await stopAll()
    process.exitCode = 1
  }
}
