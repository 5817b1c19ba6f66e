import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { BaseLogger } from 'pino'
import { metricsEndpointLimits, metricsPath } from '../../config/metrics.ts'
import { enforceConnectionBudget } from './connection-budget.ts'

export interface MetricsEndpointOptions {
  host: string
  port: number
  /** The exposition text of one scrape: this process's registry, or the cluster's workers aggregated. */
  collect: () => Promise<string>
  contentType: string
  logger: Pick<BaseLogger, 'info' | 'warn' | 'error'>
  /** A scrape this soon after the last collection gets its text again (default config/metrics.ts). */
  minCollectionIntervalMs?: number
}

export interface MetricsEndpoint {
  /** The port bound (the one asked for, or the OS's pick for 0). */
  port: number
  /** Stops listening and ends every scrape connection. */
  close(): Promise<void>
}

/**
 * The metrics port (METRICS_PORT on METRICS_HOST): `GET|HEAD /metrics` answers the exposition text, anything else 404
 * (405 for another method on /metrics). A plain node:http server of its own, never a route of the site: the site's port
 * answers 404 for /metrics, and nothing a scraper does reaches the site's hooks, limits or access log. Scrapes that
 * arrive together share one collection, and a scrape within a second of the last collection gets its text, so a
 * scraper that hammers the port costs one collection a second at most; a few connections at most are held, a new one
 * closing the longest idle, and an idle one closes before the next scrape (config/metrics.ts); a collection that fails
 * (a cluster worker that does not answer) is a 503 and a warn line, never a crash.
 */
export function listenMetrics(options: MetricsEndpointOptions): Promise<MetricsEndpoint> {
  const {
    host,
    port,
    collect,
    contentType,
    logger,
    minCollectionIntervalMs = metricsEndpointLimits.minCollectionIntervalMs,
  } = options
  let collecting: Promise<string> | undefined
  let last: { text: string; at: number } | undefined

  /** The collection under way, a recent one, or a new one; a failed collection is never reused. */
  function collectOnce(): Promise<string> {
    if (last && performance.now() - last.at < minCollectionIntervalMs) return Promise.resolve(last.text)
    collecting ??= collect()
      .then((text) => {
        last = { text, at: performance.now() }
        return text
      })
      .finally(() => {
        collecting = undefined
      })
    return collecting
  }

  async function answerScrape(request: IncomingMessage, response: ServerResponse) {
    const pathname = (request.url ?? '').split('?', 1)[0]
    if (pathname !== metricsPath) return response.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found\n')
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('Method Not Allowed\n')
    }
    let text: string
    try {
      text = await collectOnce()
    } catch (error) {
      logger.warn({ err: error }, 'metrics scrape failed')
      return response
        .writeHead(503, { 'content-type': 'text/plain', 'cache-control': 'no-store' })
        .end('Metrics unavailable\n')
    }
    response.writeHead(200, {
      'content-type': contentType,
      'content-length': Buffer.byteLength(text),
      'cache-control': 'no-store',
    })
    response.end(request.method === 'HEAD' ? undefined : text)
  }

  const server = createServer(
    {
      headersTimeout: metricsEndpointLimits.headersTimeoutMs,
      requestTimeout: metricsEndpointLimits.requestTimeoutMs,
      keepAliveTimeout: metricsEndpointLimits.keepAliveTimeoutMs,
      connectionsCheckingInterval: metricsEndpointLimits.timeoutCheckIntervalMs,
    },
    (request, response) => void answerScrape(request, response),
  )
  // A small budget, the longest idle connection closed for a newcomer: idle clients cannot lock a scraper out.
  enforceConnectionBudget(server, metricsEndpointLimits.maxConnections)
  // A scraper that sends garbage or hangs up mid-request: its socket goes, nothing else does.
  server.on('clientError', (_error, socket) => socket.destroy())

  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host, port }, () => {
      server.off('error', reject)
      server.on('error', (error) => logger.error({ err: error }, 'metrics endpoint failed'))
      const bound = (server.address() as AddressInfo).port
      logger.info(
        { address: `http://${host.includes(':') ? `[${host}]` : host}:${bound}${metricsPath}` },
        'metrics endpoint listening',
      )
      resolve({
        port: bound,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done())
            server.closeAllConnections()
          }),
      })
    })
  })
}
