import closeWithGrace from 'close-with-grace'
import { pino } from 'pino'
import { ConfigError, loadConfig } from '../config/env.ts'
import { serverLimits } from '../config/server.ts'
import { buildApp } from './app.ts'
import { loggerOptions } from './logger.ts'

/**
 * The Courier process: read the environment, pick the logger, listen, and close gracefully on SIGTERM/SIGINT
 * (stop accepting, let in-flight requests finish, exit within the grace period; a second signal exits at once).
 */
async function main(): Promise<void> {
  let config
  try {
    config = loadConfig(process.env, process.argv.includes('--dev') ? { dev: true } : {})
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`courier: ${error.message}\n`)
      process.exit(78) // EX_CONFIG
    }
    throw error
  }

  // Pretty lines for a person at a terminal, JSON for everything else (log shippers, files, pipes).
  const logger = process.stdout.isTTY
    ? pino({ ...loggerOptions(config.logLevel), transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l' } } })
    : pino(loggerOptions(config.logLevel))

  let app
  try {
    app = await buildApp(config, { logger })
  } catch (error) {
    logger.fatal({ err: error }, 'start-up failed')
    process.exit(1)
  }

  closeWithGrace({ delay: serverLimits.shutdownGraceMs }, async function shutDown({ signal, err }) {
    if (err) logger.error({ err }, 'closing after an uncaught error')
    else logger.info({ signal }, 'closing: finishing in-flight requests')
    await app.close()
    logger.info('closed')
  })

  try {
    await app.listen({ port: config.port, host: config.host })
  } catch (error) {
    logger.fatal({ err: error }, 'listen failed')
    process.exit(1)
  }
}

await main()
