import type { FastifyReply, FastifyRequest } from 'fastify'
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client'
import type { ContentReadStats } from '../content/content-files.ts'
import { clientErrorsPath } from '../../config/client-errors.ts'
import type { OutputFormat } from '../../config/images.ts'
import { eventLoopMonitoringPrecisionMs, metricBuckets } from '../../config/metrics.ts'
import type {
  DocumentKind,
  ImageCacheState,
  ImageCacheTier,
  MetricsRecorder,
  PageDataKind,
  PageDataOutcome,
  RegenerationOutcome,
  RegenerationReason,
  ShedReason,
  TransformQueueState,
} from './recorder.ts'
import { LabelledCounter, LabelledHistogram } from './labelled-series.ts'
import { clientReportResult, methodLabel, routeLabel, statusClassLabel } from './labels.ts'

export interface BuildInfo {
  deploymentId: string
  /** package.json's version. */
  version: string
  /** `process.version`, e.g. `v20.20.2`. */
  nodeVersion: string
}

/**
 * Courier's metrics in one registry of their own (never prom-client's global one): the process's default metrics, the
 * build-info gauge, and what the recorder is told. Label values are route templates, fixed words and the build's
 * own values, so the number of series is bounded by the route table (docs/operations.md "Metrics").
 */
export class CourierMetrics implements MetricsRecorder {
  readonly registry = new Registry()
  readonly #requestDuration = new LabelledHistogram({
    name: 'courier_http_request_duration_seconds',
    help: 'Time from the request to the end of its response, by route template, method and status class.',
    labelNames: ['route', 'method', 'status_class'],
    buckets: [...metricBuckets.requestSeconds],
    registers: [this.registry],
  })
  readonly #renderShell = new LabelledHistogram({
    name: 'courier_render_shell_seconds',
    help: 'Streamed renders: time from the start of the render to its shell (status and headers sent).',
    labelNames: ['route', 'document'],
    buckets: [...metricBuckets.requestSeconds],
    registers: [this.registry],
  })
  readonly #renderAllReady = new LabelledHistogram({
    name: 'courier_render_all_ready_seconds',
    help: 'Streamed renders that finished: time from the start of the render to its last Suspense boundary.',
    labelNames: ['route', 'document'],
    buckets: [...metricBuckets.requestSeconds],
    registers: [this.registry],
  })
  readonly #keptDocuments = new LabelledCounter({
    name: 'courier_kept_documents_sent_total',
    help: 'Documents sent from their bytes rendered once (static pages, error pages without digest): no render.',
    labelNames: ['route', 'document'],
    registers: [this.registry],
  })
  readonly #pageData = new LabelledCounter({
    name: 'courier_page_data_answers_total',
    help: 'Answers of the page-data route, by the page kind and what the answer says.',
    labelNames: ['kind', 'answer'],
    registers: [this.registry],
  })
  readonly #regenerations = new LabelledCounter({
    name: 'courier_page_regenerations_total',
    help: 'Regenerations of kept pages: why (time, path, tag) and how they ended (regenerated, removed, failed).',
    labelNames: ['reason', 'outcome'],
    registers: [this.registry],
  })
  readonly #keptPagesEvicted = new Counter({
    name: 'courier_kept_pages_evicted_total',
    help: 'Kept static page instances pushed out by the bounds (count or bytes, config/server.ts): loaded again when asked.',
    registers: [this.registry],
  })
  readonly #images = new LabelledCounter({
    name: 'courier_image_responses_total',
    help: 'Image optimizer responses, by cache state (as in x-image-cache) and the cache tier the bytes came from.',
    labelNames: ['cache_state', 'tier'],
    registers: [this.registry],
  })
  readonly #transforms = new LabelledHistogram({
    name: 'courier_image_transform_seconds',
    help: 'Image transforms by sharp, by output format: from asking the transform queue to the encoded bytes.',
    labelNames: ['format'],
    buckets: [...metricBuckets.transformSeconds],
    registers: [this.registry],
  })
  readonly #shed = new LabelledCounter({
    name: 'courier_requests_shed_total',
    help:
      'Requests refused before any work: 503 under overload or while draining for shutdown; 429 for an image when ' +
      'the transform queue is full.',
    labelNames: ['reason'],
    registers: [this.registry],
  })
  readonly #clientReports = new LabelledCounter({
    name: 'courier_client_reports_total',
    help: 'Client error reports (POST /api/client-errors): accepted (logged), or refused and why.',
    labelNames: ['result'],
    registers: [this.registry],
  })
  readonly #transformQueues: TransformQueueState[] = []
  #contentReads: () => ContentReadStats = () => ({ inFlight: 0, stuck: 0, timedOut: 0 })

  constructor(build: BuildInfo) {
    const registers = [this.registry]
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: eventLoopMonitoringPrecisionMs })
    const buildInfo = new Gauge({
      name: 'courier_build_info',
      help: 'Always 1: the deployment id, package version and Node.js version this process runs.',
      labelNames: ['deployment_id', 'version', 'node_version'] as const,
      // A cluster's workers run one build: its value is 1 for the whole process, not the number of workers.
      aggregator: 'first',
      registers,
    })
    buildInfo.set({ deployment_id: build.deploymentId, version: build.version, node_version: build.nodeVersion }, 1)
    this.#registerScrapeTimeGauges(registers)
  }

  /** The gauges read at scrape time: the transform queues' and the content reads' state. */
  #registerScrapeTimeGauges(registers: Registry[]): void {
    const queues = this.#transformQueues
    new Gauge({
      name: 'courier_image_transform_queue_length',
      help: 'Image transforms waiting for a slot, read at scrape time.',
      registers,
      collect() {
        this.set(queues.reduce((sum, queue) => sum + queue.queued, 0))
      },
    })
    new Gauge({
      name: 'courier_image_transforms_running',
      help: 'Image transforms running, read at scrape time.',
      registers,
      collect() {
        this.set(queues.reduce((sum, queue) => sum + queue.running, 0))
      },
    })
    const contentReads = () => this.#contentReads()
    new Gauge({
      name: 'courier_content_reads_stuck',
      help:
        'Reads of CONTENT_DIR past their time-out whose system call has not returned (a file system that stopped ' +
        'answering), read at scrape time.',
      registers,
      collect() {
        this.set(contentReads().stuck)
      },
    })
    let timedOutSeen = 0
    new Counter({
      name: 'courier_content_read_timeouts_total',
      help: 'Listings and reads of CONTENT_DIR that timed out, read at scrape time.',
      registers,
      collect() {
        const { timedOut } = contentReads()
        this.inc(timedOut - timedOutSeen)
        timedOutSeen = timedOut
      },
    })
  }

  /** One finished response: its duration, and a client report's fate. */
  responseFinished(request: FastifyRequest, reply: FastifyReply): void {
    const route = routeLabel(request)
    const statusCode = reply.statusCode
    this.#requestDuration.observe(
      reply.elapsedTime / 1000,
      route,
      methodLabel(request.method),
      statusClassLabel(statusCode),
    )
    if (route === clientErrorsPath) this.#clientReports.inc(clientReportResult(statusCode))
  }

  keptDocumentSent(request: FastifyRequest, document: DocumentKind): void {
    this.#keptDocuments.inc(routeLabel(request), document)
  }

  renderShellReady(request: FastifyRequest, document: DocumentKind, seconds: number): void {
    this.#renderShell.observe(seconds, routeLabel(request), document)
  }

  renderAllReady(request: FastifyRequest, document: DocumentKind, seconds: number): void {
    this.#renderAllReady.observe(seconds, routeLabel(request), document)
  }

  pageDataAnswered(kind: PageDataKind, answer: PageDataOutcome): void {
    this.#pageData.inc(kind, answer)
  }

  pageRegenerated(reason: RegenerationReason, outcome: RegenerationOutcome, _seconds: number): void {
    this.#regenerations.inc(reason, outcome)
  }

  keptPageEvicted(): void {
    this.#keptPagesEvicted.inc()
  }

  imageServed(state: ImageCacheState, tier: ImageCacheTier): void {
    this.#images.inc(state, tier)
  }

  imageTransformed(format: OutputFormat, seconds: number): void {
    this.#transforms.observe(seconds, format)
  }

  watchTransformQueue(queue: TransformQueueState): void {
    this.#transformQueues.push(queue)
  }

  requestShed(reason: ShedReason): void {
    this.#shed.inc(reason)
  }

  watchContentReads(read: () => ContentReadStats): void {
    this.#contentReads = read
  }
}
