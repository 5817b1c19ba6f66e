import { createHash } from 'node:crypto'
import path from 'node:path'
import type { FastifyBaseLogger } from 'fastify'
import type { ImageOptimizerLimits } from '../../config/images.ts'
import { errors } from '../errors.ts'
import { SingleFlight } from '../toolbox/single-flight.ts'
import { strongEtag } from '../etag.ts'
import type { CacheEntryMeta, DiskImageCache } from './disk-cache.ts'
import { chooseFormat, contentTypes, extensions, type AcceptedFormats } from './negotiate.ts'
import type { OutputFormat } from '../../config/images.ts'
import { sniffImageFormat } from './sniff.ts'
import { readLocalImage, type SourceImage } from './source-local.ts'
import type { SharedImageCache } from './redis-cache.ts'
import type { RemoteSource } from './source-remote.ts'
import { transformImage } from './transform.ts'
import type { Semaphore } from '../toolbox/semaphore.ts'
import type { ImageSource } from './validate-url.ts'
import { httpClientAttributes, spanUrlOf } from '../tracing/client-span.ts'
import { tracingOff, type TraceSpan, type Tracing } from '../tracing/tracing.ts'
import type { MetricsRecorder } from '../metrics/recorder.ts'

export interface ImageJob {
  /** The `url` parameter as given (for logs; the cache key is built from `source`). */
  url: string
  source: ImageSource
  width: number
  quality: number
  /** What `Accept` allows: the cache key holds this, not the output format, so a hit needs no look at the source. */
  accepted: AcceptedFormats
  /** Who asked (the request's IP): the transform queue bounds each client's share. */
  client: string
}

export interface ProducedImage {
  meta: CacheEntryMeta
  bytes: Buffer
}

export interface ImageOptimizerOptions {
  publicRoot: string
  cache: DiskImageCache
  remote: RemoteSource
  /** The transform queue: a few at once, a bounded wait, a share per client. */
  queue: Semaphore
  limits: ImageOptimizerLimits
  minimumCacheTTL: number
  allowSvg: boolean
  now: () => number
  /** The cluster's shared tier (REDIS_URL): one transform per image across instances. */
  shared?: SharedImageCache | undefined
  /** Spans of the remote fetch and the transform, children of the span `produce` is given (plugins/tracing.ts). */
  tracing?: Tracing | undefined
  /** Told of every transform's duration (METRICS_PORT); none when metrics are off. */
  metrics?: MetricsRecorder | undefined
}

/**
 * The cache key: a hash of the image's identity (the decoded, normalised local path, a content image's path and the
 * hash of its bytes, or the remote URL without its fragment), w, q and the formats `Accept` allows, and nothing else:
 * every spelling of one variant is one entry.
 */
export function cacheKey(source: ImageSource, width: number, quality: number, accepted: AcceptedFormats): string {
  let identity: string
  if (source.kind === 'local') identity = `local:${source.path}`
  else if (source.kind === 'content') identity = `content:${source.path}:${source.hash}`
  else {
    const url = new URL(source.url)
    url.hash = ''
    identity = `remote:${url.href}`
  }
  return createHash('sha256')
    .update(JSON.stringify([identity, width, quality, accepted.avif, accepted.webp]))
    .digest('hex')
}

/** `dunes` from `/images/dunes.jpg`, reduced to characters safe inside a quoted header value. */
function baseName(source: ImageSource): string {
  const pathname = source.kind === 'remote' ? decodeURIComponent(source.url.pathname) : source.path
  const name = path.posix.basename(pathname, path.posix.extname(pathname)).replace(/[^A-Za-z0-9._-]/g, '_')
  return name.slice(0, 100) || 'image'
}

/**
 * Makes optimized images: reads the source, sniffs it, transforms it within the queue, stores it in the cache.
 * Identical concurrent requests (same key) share one production; a stale entry is refreshed in the background.
 */
export class ImageOptimizer {
  readonly #inFlight = new SingleFlight<string, ProducedImage>()
  readonly #options: ImageOptimizerOptions

  constructor(options: ImageOptimizerOptions) {
    this.#options = options
  }

  /**
   * The image for `key`: the production already under way for it, or a new one. Its fetch and transform spans go
   * under `parent` (the image span of the request that started it; the requests that join it wait in their own
   * spans); none without a parent.
   */
  produce(key: string, job: ImageJob, log: FastifyBaseLogger, parent?: TraceSpan): Promise<ProducedImage> {
    return this.#inFlight.run(key, () => this.#produce(key, job, log, parent))
  }

  /**
   * Starts a background refresh of a stale entry; a failure keeps the stale entry and is logged. No request waits
   * for it, so it has no span: the request that found the entry stale has answered already.
   */
  refresh(key: string, job: ImageJob, log: FastifyBaseLogger): void {
    if (this.#inFlight.has(key)) return
    this.produce(key, job, log).catch((error: unknown) => {
      // A full queue is load, not a failure: the stale entry stays, the next request that finds it stale tries again.
      if (error instanceof errors.ImageBusy) {
        return log.warn({ code: error.code, url: job.url }, 'image refresh skipped: optimizer busy')
      }
      log.warn({ err: error, url: job.url }, 'image refresh failed')
    })
  }

  async #readSource(source: ImageSource, parent: TraceSpan | undefined): Promise<SourceImage> {
    const { publicRoot, limits, remote, tracing = tracingOff } = this.#options
    if (source.kind === 'local') return readLocalImage(publicRoot, source.path, limits.maxSourceBytes)
    if (source.kind === 'content') return { bytes: source.bytes, maxAgeS: undefined }
    const { url } = source
    // A CLIENT span: the remote host's own spans, if it traces, go under it through the traceparent it is sent.
    return tracing.inSpan(
      parent,
      'courier.image.fetch',
      {
        kind: 'client',
        attributes: httpClientAttributes('GET', url),
      },
      (span) => {
        const headers: Record<string, string> = {}
        span.injectInto(headers)
        let statusCode = 0
        return remote
          .read(url, {
            headers,
            onResponse(status) {
              statusCode = status
              span.setAttributes({ 'http.response.status_code': status })
            },
            onRedirect: (target) => span.addEvent('redirect', { 'url.full': spanUrlOf(target) }),
          })
          .catch((error: unknown) => {
            // The semantic conventions' error.type: the status when the host answered with an error, else what failed.
            const code = (error as { code?: unknown }).code
            span.setAttributes({
              'error.type': statusCode >= 400 ? String(statusCode) : typeof code === 'string' ? code : 'Error',
            })
            throw error
          })
      },
    )
  }

  /**
   * With a shared tier: the image another instance made (fresh), or this one's own, made while holding the cluster's
   * lock for it. Without one (or with Redis down): made here.
   */
  async #produce(
    key: string,
    job: ImageJob,
    log: FastifyBaseLogger,
    parent: TraceSpan | undefined,
  ): Promise<ProducedImage> {
    const { shared, cache } = this.#options
    if (!shared) return this.#make(key, job, log, parent)
    const { value, made } = await shared.produce(key, () => this.#make(key, job, log, parent), log)
    if (!made) {
      log.debug({ key, url: job.url }, 'image made by another instance')
      await cache.put(value.meta, value.bytes)
    }
    return value
  }

  async #make(
    key: string,
    job: ImageJob,
    log: FastifyBaseLogger,
    parent: TraceSpan | undefined,
  ): Promise<ProducedImage> {
    const { cache, queue, limits, minimumCacheTTL, allowSvg, now, tracing = tracingOff } = this.#options
    const source = await this.#readSource(job.source, parent)
    const sourceFormat = sniffImageFormat(source.bytes)
    if (!sourceFormat) throw new errors.ImageNotAnImage('url does not point to an image (JPEG, PNG, GIF, WebP or AVIF)')
    let bytes: Buffer
    let format: OutputFormat
    if (sourceFormat === 'svg') {
      if (!allowSvg) {
        throw new errors.ImageNotAnImage('url points to an SVG image, which the optimizer refuses (IMAGES_ALLOW_SVG)')
      }
      bytes = source.bytes
      format = 'svg'
    } else {
      const started = performance.now()
      // The format for a still, opaque source; the transform may pick another (alpha, animation) and says so below.
      const expected = chooseFormat(job.accepted, sourceFormat, false)
      const attributes = {
        'courier.image.source_format': sourceFormat,
        'courier.image.format': expected,
        'courier.image.width': job.width,
      }
      // The span includes the wait in the transform queue: under load, that is where the time goes.
      const result = await tracing.inSpan(parent, 'courier.image.transform', { attributes }, async (span) => {
        const transformed = await queue.run(
          () =>
            transformImage(
              {
                bytes: source.bytes,
                source: sourceFormat,
                accepted: job.accepted,
                width: job.width,
                quality: job.quality,
              },
              limits,
            ),
          job.client,
        )
        if (transformed.format !== expected) span.setAttributes({ 'courier.image.format': transformed.format })
        return transformed
      })
      bytes = result.bytes
      format = result.format
      const ms = performance.now() - started
      this.#options.metrics?.imageTransformed(format, ms / 1000)
      log.debug(
        { key, url: job.url, width: job.width, quality: job.quality, format, bytes: bytes.length, ms: Math.round(ms) },
        'image transformed',
      )
    }
    const maxAgeS = Math.max(minimumCacheTTL, source.maxAgeS ?? 0)
    const meta: CacheEntryMeta = {
      key,
      contentType: contentTypes[format],
      filename: `${baseName(job.source)}.${extensions[format]}`,
      etag: strongEtag(bytes),
      maxAgeS,
      expiresAt: now() + maxAgeS * 1000,
      size: bytes.length,
    }
    await cache.put(meta, bytes)
    return { meta, bytes }
  }
}
