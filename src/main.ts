import closeWithGrace from 'close-with-grace'
import cluster from 'node:cluster'
import module from 'node:module'
import { pino, type Logger } from 'pino'
import { ConfigError, loadConfig, type Config } from '../config/env.ts'
import { serverLimits } from '../config/server.ts'
import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.ts'
import { runPrimary } from './cluster.ts'
import { loggerOptions } from './logger.ts'
import { setFlagsOnceLoaded } from './runtime/start-up.ts'

/**
 * The Courier process, loaded by its entry (src/server.ts) once the Node is known to be one Courier runs on: read the
 * environment, pick the logger, listen, and close gracefully on SIGTERM/SIGINT (stop accepting, let in-flight requests
 * finish, exit within the grace period; a second signal exits at once).
 */
async function main(): Promise<void> {
  const config = readConfig()
  // Pretty lines for a person at a terminal, JSON for everything else (log shippers, files, pipes). pino-pretty is a
  // stream of this thread, loaded only then, not a transport: a transport's worker loads pino's files by path, and
  // the compiled server has pino inside it (src/build/server-build.ts).
  const logger = process.stdout.isTTY
    ? pino(loggerOptions(config.logLevel), (await import('pino-pretty')).default({ translateTime: 'SYS:HH:MM:ss.l' }))
    : pino(loggerOptions(config.logLevel))

  // WEB_CONCURRENCY above 1: this process becomes the cluster's primary, and each worker runs the rest of main().
  // Not in development: one Vite dev server (and its HMR socket) per worker would fight over the same files.
  if (cluster.isPrimary && config.socketPath) await clearSocketPath(config.socketPath, logger)
  if (config.webConcurrency > 1 && !config.dev && cluster.isPrimary) return runClusterPrimary(config, logger)

  let app
  try {
    app = await buildApp(config, { logger })
  } catch (error) {
    logger.fatal({ err: error }, 'start-up failed')
    process.exit(1)
  }

  closeGracefully(app, logger)
  setFlagsOnceLoaded()
  try {
    // On a socket, its folder decides who may connect (docs/running-at-scale.md "Instances on Unix sockets").
    await app.listen(
      config.socketPath
        ? { path: config.socketPath, readableAll: true, writableAll: true }
        : { port: config.port, host: config.host },
    )
  } catch (error) {
    logger.fatal({ err: error }, 'listen failed')
    process.exit(1)
  }
  // What start-up compiled goes to V8's compile cache now (src/runtime/start-up.ts), not only when the process exits
  // normally: a server that is killed still leaves it for the next start. Nothing when the cache is off.
  module.flushCompileCache()
}

/** A stale socket file removed; a socket in use, or another file there, ends the process with one line. */
async function clearSocketPath(socketPath: string, logger: Logger): Promise<void> {
  const { prepareSocketPath } = await import('./runtime/socket-path.ts')
  try {
    await prepareSocketPath(socketPath)
  } catch (error) {
    logger.fatal({ err: error }, 'listen failed')
    process.exit(1)
  }
}

/** The environment read once; a bad one ends the process with one line and EX_CONFIG. */
function readConfig(): Config {
  try {
    return loadConfig(process.env, process.argv.includes('--dev') ? { dev: true } : {})
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`courier: ${error.message}\n`)
      process.exit(78) // EX_CONFIG
    }
    throw error
  }
}

/** The cluster's primary: forks and replaces the workers; with METRICS_PORT it serves their summed metrics. */
async function runClusterPrimary(config: Config, logger: Logger): Promise<void> {
  // The workers bind no metrics port.
  const metrics =
    config.metricsPort === undefined
      ? undefined
      : await (
          await import('./metrics/cluster-primary.ts')
        ).serveClusterMetrics({ host: config.metricsHost, port: config.metricsPort, logger })
  process.exitCode = await runPrimary({ workers: config.webConcurrency, logger })
  await metrics?.close()
}

/**
 * One line on the signal, one once closed with the time it took; a second signal or the grace running out exits at
 * once with code 1, logged through pino too (close-with-grace would write plain text to stderr).
 */
function closeGracefully(app: FastifyInstance, logger: Logger): void {
  closeWithGrace(
    {
      delay: serverLimits.shutdownGraceMs,
      logger: false,
      onSecondSignal(signal) {
        logger.warn({ signal }, 'second signal: exiting at once')
      },
      onSecondError(err) {
        logger.error({ err }, 'second uncaught error: exiting at once')
      },
      onTimeout(graceMs) {
        logger.error({ graceMs }, 'shutdown grace period over: exiting with requests still open')
      },
    },
    async function shutDown({ signal, err }) {
      const startedAt = performance.now()
      if (err) logger.error({ err }, 'closing after an uncaught error')
      else logger.info({ signal, graceMs: serverLimits.shutdownGraceMs }, 'closing: finishing in-flight requests')
      try {
        await app.close()
      } catch (error) {
        logger.error({ err: error }, 'close failed')
        throw error
      }
      logger.info({ durationMs: Math.round(performance.now() - startedAt) }, 'closed')
    },
  )
}

await main()
