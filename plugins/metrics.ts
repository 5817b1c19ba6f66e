import fp from 'fastify-plugin'
import cluster from 'node:cluster'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { AggregatorRegistry } from 'prom-client'
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { errors } from '../src/errors.ts'
import { CourierMetrics } from '../src/metrics/courier-metrics.ts'
import { listenMetrics, type MetricsEndpoint } from '../src/metrics/endpoint.ts'

export interface MetricsOptions {
  /** METRICS_HOST and METRICS_PORT: where this process serves its metrics (not in a cluster worker). */
  host: string
  port: number
  /** The project root: its package.json's version goes into `courier_build_info`. */
  rootDir: string
  /** A WEB_CONCURRENCY worker (default: whether this process is one): it serves no port, its primary asks it over
   * IPC and serves the cluster's sum (src/metrics/cluster-primary.ts). */
  clusterWorker?: boolean
}

async function readVersion(rootDir: string): Promise<string> {
  const { version } = JSON.parse(await readFile(path.join(rootDir, 'package.json'), 'utf8')) as { version?: unknown }
  return typeof version === 'string' ? version : 'unknown'
}

/**
 * Prometheus metrics (METRICS_PORT; docs/operations.md "Metrics"), registered only when it is set, before every plugin
 * but tracing. Decorates `fastify.metrics` (src/metrics/recorder.ts), through which the renderer, page data, the image
 * optimizer, load shedding and the drain report; an onResponse hook times every response. The metrics port opens once
 * the site listens and closes with it; a port that cannot be bound is an error line, and the site serves on without
 * metrics. In a cluster worker nothing listens: the worker answers its primary's requests for its registry.
 */
async function metrics(fastify: FastifyInstance, options: MetricsOptions) {
  const { host, port, rootDir, clusterWorker = cluster.isWorker } = options
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new errors.OptionInvalid('port', 'a port number from 0 to 65535')
  }
  if (typeof host !== 'string' || host === '') throw new errors.OptionInvalid('host', 'an address to listen on')

  const recorder = new CourierMetrics({
    deploymentId: fastify.deploymentId,
    version: await readVersion(rootDir),
    nodeVersion: process.version,
  })
  fastify.decorate('metrics', recorder)

  fastify.addHook(
    'onResponse',
    function recordResponse(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
      recorder.responseFinished(request, reply)
      done()
    },
  )

  if (clusterWorker) {
    // prom-client's cluster protocol: constructing an AggregatorRegistry in a worker makes it answer the primary's
    // requests with the registries set here.
    AggregatorRegistry.setRegistries([recorder.registry])
    new AggregatorRegistry()
    return
  }

  let endpoint: MetricsEndpoint | undefined
  fastify.addHook('onListen', async function openMetricsPort() {
    try {
      endpoint = await listenMetrics({
        host,
        port,
        collect: () => recorder.registry.metrics(),
        contentType: recorder.registry.contentType,
        logger: fastify.log,
      })
    } catch (error) {
      fastify.log.error({ err: error, host, port }, 'metrics endpoint unavailable: serving without it')
    }
  })
  fastify.addHook('onClose', async function closeMetricsPort() {
    await endpoint?.close()
  })
}

export default fp(metrics, { name: 'courier-metrics', fastify: '5.x', dependencies: ['courier-deployment-id'] })
