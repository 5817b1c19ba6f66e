import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import { loadConfig, type Config } from '../../config/env.ts'
import { buildApp, type BuildOptions } from '../../src/app.ts'
import { loggerOptions } from '../../src/logger.ts'
import { fixtureContentDir } from './content.ts'

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
 * The whole app over the production build, logging into memory, not ready yet (a test may add routes); closed when
 * the test ends. `env` adds environment variables (as strings, like the process would see them); `overrides`, what
 * no variable sets (`rootDir`: a project root of the test's own).
 */
export async function buildUnready(
  t: Test,
  env: Record<string, string> = {},
  options: Omit<BuildOptions, 'logger'> = {},
  overrides: Partial<Config> = {},
): Promise<Built> {
  // An empty image cache of the test's own unless it names one: no test sees another's entries.
  const imageCacheDir = await mkdtemp(path.join(tmpdir(), 'courier-test-images-'))
  t.teardown(() => rm(imageCacheDir, { recursive: true, force: true }))
  // The tests' own content (test/helpers/content.ts) unless the test names a CONTENT_DIR: never the example's.
  const config = loadConfig(
    { LOG_LEVEL: 'debug', IMAGE_CACHE_DIR: imageCacheDir, CONTENT_DIR: fixtureContentDir, ...env },
    overrides,
  )
  const { stream, lines } = captureLogs()
  const app = await buildApp(config, { ...options, logger: pino(loggerOptions(config.logLevel), stream) })
  t.teardown(() => app.close())
  return { app, config, logs: lines }
}

/** `buildUnready`, then ready: the app as a request sees it. */
export async function build(
  t: Test,
  env: Record<string, string> = {},
  options: Omit<BuildOptions, 'logger'> = {},
  overrides: Partial<Config> = {},
): Promise<Built> {
  const built = await buildUnready(t, env, options, overrides)
  await built.app.ready()
  return built
}
