import cluster from 'node:cluster'
import { AggregatorRegistry, Gauge, Registry } from 'prom-client'
import type { BaseLogger } from 'pino'
import { listenMetrics, type MetricsEndpoint } from './endpoint.ts'

export interface ClusterMetricsOptions {
  host: string
  port: number
  logger: Pick<BaseLogger, 'info' | 'warn' | 'error'>
}

/** Workers of this primary that can still answer over IPC. */
function connectedWorkers(): number {
  return Object.values(cluster.workers ?? {}).filter((worker) => worker?.isConnected()).length
}

/**
 * The metrics port of a WEB_CONCURRENCY primary (src/server.ts): one scrape shows the whole process. prom-client's
 * AggregatorRegistry asks every worker for its registry over the cluster's IPC channel (plugins/metrics.ts answers)
 * and sums them (counters and histograms add up; the default metrics aggregate as prom-client defines, e.g. the
 * event-loop lag is averaged; `courier_build_info` stays 1). The primary adds the number of workers connected. A
 * worker that does not answer within prom-client's 5 s fails that scrape (503, a warn line), never the site.
 * Undefined when the port cannot be bound: an error line, and the cluster serves on without metrics.
 */
export async function serveClusterMetrics(options: ClusterMetricsOptions): Promise<MetricsEndpoint | undefined> {
  const { host, port, logger } = options
  const workers = new AggregatorRegistry()
  const primary = new Registry()
  new Gauge({
    name: 'courier_cluster_workers',
    help: 'Worker processes of this WEB_CONCURRENCY primary connected at scrape time.',
    registers: [primary],
    collect() {
      this.set(connectedWorkers())
    },
  })
  async function collect(): Promise<string> {
    const [summed, own] = await Promise.all([workers.clusterMetrics(), primary.metrics()])
    return [summed, own].filter((text) => text !== '').join('\n')
  }
  try {
    return await listenMetrics({ host, port, collect, contentType: workers.contentType, logger })
  } catch (error) {
    logger.error({ err: error, host, port }, 'metrics endpoint unavailable: serving without it')
    return undefined
  }
}
