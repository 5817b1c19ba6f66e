import { Writable } from 'node:stream'
import { pino } from 'pino'
import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import { loadConfig, type Config } from '../../config/env.ts'
import { buildApp, type BuildOptions } from '../../src/app.ts'
import { loggerOptions } from '../../src/logger.ts'

export interface LogLine {
  level: number
  msg: string
  reqId?: string
  [field: string]: unknown
}

export interface Built {
  app: FastifyInstance
  config: Config
  /** Every log line written so far, parsed. */
  logs(): LogLine[]
}

/** Collects pino's JSON lines in memory. */
export function captureLogs(): { stream: Writable; lines: () => LogLine[] } {
  const lines: LogLine[] = []
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const text of chunk.toString('utf8').split('\n')) if (text.trim()) lines.push(JSON.parse(text) as LogLine)
      callback()
    },
  })
  return { stream, lines: () => lines }
}

/**
 * The whole app over the production build, logging into memory; closed when the test ends.
 * `env` adds environment variables (as strings, like the process would see them).
 */
export async function build(
  t: Test,
  env: Record<string, string> = {},
  options: Omit<BuildOptions, 'logger'> = {},
): Promise<Built> {
  const config = loadConfig({ LOG_LEVEL: 'debug', ...env })
  const { stream, lines } = captureLogs()
  const app = await buildApp(config, { ...options, logger: pino(loggerOptions(config.logLevel), stream) })
  t.teardown(() => app.close())
  await app.ready()
  return { app, config, logs: lines }
}
