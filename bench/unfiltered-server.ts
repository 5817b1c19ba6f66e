/**
 * Courier with the request filter switched off, and nothing else changed: the bench loads the same page on it and on
 * the real server, and the difference is the filter's cost (nonce, CSP and header strings, path judgement, steps).
 * The switch (`requestFilter: { enabled: false }`) exists for this file only; no environment variable reaches it.
 *
 * Run by bench/run.ts as `node --import tsx bench/unfiltered-server.ts` with HOST, PORT (and DIST_DIR) in the environment.
 */
import { pino } from 'pino'
import { loadConfig } from '../config/env.ts'
import { buildApp } from '../src/app.ts'
import { loggerOptions } from '../src/logger.ts'

async function main(): Promise<void> {
  const config = loadConfig(process.env)
  const app = await buildApp(config, { logger: pino(loggerOptions(config.logLevel)), requestFilter: { enabled: false } })
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, function closeOnSignal() {
      app.close().then(
        () => process.exit(0),
        () => process.exit(1),
      )
    })
  }
  await app.listen({ host: config.host, port: config.port })
}

main().catch((error: unknown) => {
  process.stderr.write(`unfiltered-server: ${(error as Error)?.stack ?? String(error)}\n`)
  process.exit(1)
})
