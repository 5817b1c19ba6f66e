import fp from 'fastify-plugin'
import { createHash } from 'node:crypto'
import { realpath } from 'node:fs/promises'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { images, imageOptimizer, type ImageOptimizerLimits } from '../config/images.ts'
import { sharedState } from '../config/shared-state.ts'
import { contentImages } from '../config/content.ts'
import type { ContentSource } from '../src/content/content-source.ts'
import { errors } from '../src/errors.ts'
import { matchesIfNoneMatch } from '../src/etag.ts'
import { DiskImageCache, type CacheEntry } from '../src/images/disk-cache.ts'
import { imageHeaders, keptOnNotModified } from '../src/images/image-headers.ts'
import {
  imageQueryErrorFormatter,
  imageQuerySchema,
  refuseRepeatedParameters,
  type ImageQuery,
} from '../src/images/image-query.ts'
import { acceptedFormats } from '../src/images/negotiate.ts'
import { SharedImageCache, type SharedImageLimits } from '../src/images/redis-cache.ts'
import { cacheKey, ImageOptimizer, type ImageJob } from '../src/images/optimizer.ts'
import { createRemoteSource, type LookupFunction } from '../src/images/source-remote.ts'
import { configureSharp } from '../src/images/transform.ts'
import type { MetricsRecorder } from '../src/metrics/recorder.ts'
import { Semaphore } from '../src/toolbox/semaphore.ts'
import { compileRemoteOrigins, optimizerPath, parseImageUrl, type ImageSource } from '../src/images/validate-url.ts'
import { tracingOf, type TraceSpan } from '../src/tracing/tracing.ts'
import type { ImageCacheState as MetricCacheState, ImageCacheTier } from '../src/metrics/recorder.ts'

export interface ImageOptions {
  /** The public folder local `url`s are read from (client/public). */
  publicRoot: string
  /**
   * The site's content: local `url`s under `/content/images/` are its images (docs/content.md "Images of the content").
   */
  content?: ContentSource
  /** Where optimized images are cached (IMAGE_CACHE_DIR). */
  cacheDir: string
  /** Serve SVG sources as they are (IMAGES_ALLOW_SVG); refused with 400 otherwise. */
  allowSvg?: boolean
  /** Overrides of config/images.ts `imageOptimizer` (tests use a tiny cache cap, short time-outs, an allow-list). */
  limits?: Partial<ImageOptimizerLimits>
  /** The clock, in epoch milliseconds (tests move it to make entries stale). */
  now?: () => number
  /** Name resolution for remote sources (default: dns.lookup). */
  lookup?: LookupFunction
  /** Addresses remote fetches never connect to (default: loopback, private, link-local and reserved ranges). */
  isAddressRefused?: (address: string) => boolean
  /** Overrides of config/shared-state.ts for the shared tier (tests shorten the lock and the wait). */
  sharedLimits?: Partial<SharedImageLimits>
}

export type ImageCacheState = 'MISS' | 'HIT' | 'STALE'

/** Response header that tells whether the bytes came from the cache: MISS, HIT or STALE. */
export const cacheStateHeader = 'x-image-cache'

/** The cache state as the image metric labels it (METRICS_PORT). */
const metricStates: Readonly<Record<ImageCacheState, MetricCacheState>> = { MISS: 'miss', HIT: 'hit', STALE: 'stale' }

/** A cache entry found for a request, and which tier had it. */
interface FoundEntry {
  entry: CacheEntry
  tier: Exclude<ImageCacheTier, 'none'>
}

/** The options' folders and limits, checked once at registration. */
function checkedLimits({ publicRoot, cacheDir, limits }: ImageOptions): ImageOptimizerLimits {
  if (typeof publicRoot !== 'string' || publicRoot === '') {
    throw new errors.OptionInvalid('publicRoot', 'must be a folder')
  }
  if (typeof cacheDir !== 'string' || cacheDir === '') throw new errors.OptionInvalid('cacheDir', 'must be a folder')
  const checked: ImageOptimizerLimits = { ...imageOptimizer, ...limits }
  if (!(images.qualities as readonly number[]).includes(checked.defaultQuality)) {
    throw new errors.OptionInvalid('defaultQuality', `must be one of images.qualities (${images.qualities.join(', ')})`)
  }
  return checked
}

/** The disk cache, opened; without a usable folder every request is a MISS: slower, still correct. */
async function openDiskCache(fastify: FastifyInstance, cacheDir: string, limits: ImageOptimizerLimits) {
  const cache = new DiskImageCache({
    dir: cacheDir,
    maxBytes: limits.cacheMaxBytes,
    memoryEntryMaxBytes: limits.memoryEntryMaxBytes,
    memoryMaxBytes: limits.memoryMaxBytes,
    log: fastify.log,
  })
  try {
    await cache.open()
  } catch (error) {
    fastify.log.warn({ err: error, cacheDir }, 'image cache unavailable')
  }
  return cache
}

/** A few transforms at once; a full queue, or a client over its share, is refused at once (429), not piled up. */
function transformQueue(limits: ImageOptimizerLimits): Semaphore {
  return new Semaphore({
    max: limits.maxConcurrentTransforms,
    maxQueued: limits.maxQueuedTransforms,
    maxPerKey: limits.maxTransformsPerClient,
    busy: () => new errors.ImageBusy(),
  })
}

/**
 * Sends an image, or 304 when `body` is undefined (the request's If-None-Match matched). A 304 carries only what
 * updates the cached response (RFC 9110 section 15.4.5): ETag, Cache-Control and Vary (Node adds Date); the
 * representation's own headers (type, length, disposition, CSP, nosniff) and the cache state stay with the 200.
 */
function sendImage(
  reply: FastifyReply,
  metrics: MetricsRecorder | undefined,
  headers: Readonly<Record<string, string>>,
  state: ImageCacheState,
  tier: ImageCacheTier,
  body: unknown,
) {
  metrics?.imageServed(metricStates[state], tier)
  if (body === undefined) {
    // Headers other plugins set before the handler (the site's nosniff and referrer policy) go too; the request id
    // and HSTS stay: they belong to every response, not to the representation.
    for (const name of Object.keys(reply.getHeaders())) if (!keptOnNotModified.has(name)) reply.removeHeader(name)
    return reply
      .code(304)
      .headers({ etag: headers.etag, 'cache-control': headers['cache-control'], vary: headers.vary })
      .send()
  }
  return reply.headers(headers).header(cacheStateHeader, state).send(body)
}

/** The shared tier (REDIS_URL); none when the plugin is registered alone (tests): plugins/shared-state.ts decides. */
function sharedImageCache(
  fastify: FastifyInstance,
  sharedLimits: ImageOptions['sharedLimits'],
  now: () => number,
): SharedImageCache | undefined {
  const redis = fastify.hasDecorator('sharedRedis') ? fastify.sharedRedis : null
  return redis ? new SharedImageCache({ redis, limits: { ...sharedState, ...sharedLimits }, now }) : undefined
}

/** The remote sources' fetcher (the allow-listed origins), closed with the app. */
function openRemoteSource(
  fastify: FastifyInstance,
  origins: ReturnType<typeof compileRemoteOrigins>,
  limits: ImageOptimizerLimits,
  { lookup, isAddressRefused }: ImageOptions,
) {
  const remote = createRemoteSource({
    origins,
    limits,
    ...(lookup ? { lookup } : {}),
    ...(isAddressRefused ? { isAddressRefused } : {}),
  })
  fastify.addHook('onClose', async function closeRemoteSource() {
    await remote.close()
  })
  return remote
}

/**
 * GET /_next/image?url=&w=&q=: local images from the public folder (and remote ones from the allow-list) resized to
 * an allowed width, in the best format the browser accepts, cached on disk (docs/images.md).
 */
async function image(fastify: FastifyInstance, options: ImageOptions) {
  const { publicRoot, content, cacheDir, allowSvg = false, now = Date.now } = options
  const limits = checkedLimits(options)
  const origins = compileRemoteOrigins(limits.remoteOrigins)
  configureSharp(limits.sharpConcurrency)
  const cache = await openDiskCache(fastify, cacheDir, limits)
  const remote = openRemoteSource(fastify, origins, limits, options)
  const shared = sharedImageCache(fastify, options.sharedLimits, now)
  const tracing = tracingOf(fastify)
  const metrics = fastify.metrics
  const queue = transformQueue(limits)
  metrics?.watchTransformQueue(queue)
  const optimizer = new ImageOptimizer({
    publicRoot: await realpath(publicRoot),
    cache,
    remote,
    queue,
    metrics,
    limits,
    minimumCacheTTL: images.minimumCacheTTL,
    allowSvg,
    now,
    shared,
    tracing,
  })

  /**
   * The entry to answer from: the local one while fresh; else the shared one (REDIS_URL) when it is newer, kept
   * locally too. Undefined when neither has it.
   */
  async function lookUp(key: string): Promise<FoundEntry | undefined> {
    const local = cache.get(key)
    const fromDisk = local && { entry: local, tier: 'disk' as const }
    if (!shared || (local && local.expiresAt > now())) return fromDisk
    const found = await shared.get(key)
    if (!found || (local && found.meta.expiresAt <= local.expiresAt)) return fromDisk
    // A disk that cannot take it (read-only, full) still lets this response be answered from memory.
    const entry = (await cache.put(found.meta, found.bytes)) ?? {
      ...found.meta,
      body: found.bytes,
      file: '',
      bodyOffset: 0,
    }
    return { entry, tier: 'redis' }
  }

  /**
   * A full transform queue: overload of the optimizer alone, never a failure of the instance. The error handler answers
   * the 429 (a proxy neither retries nor counts it, deploy/nginx/courier.conf); here its `Retry-After`, its count
   * and one warn line without a stack (a burst must not page anyone with traces).
   */
  function answerBusy(request: FastifyRequest, reply: FastifyReply, error: InstanceType<typeof errors.ImageBusy>) {
    metrics?.requestShed('image_busy')
    request.log.warn({ code: error.code, running: queue.running, queued: queue.queued }, 'image optimizer busy')
    reply.header('retry-after', String(limits.busyRetryAfterS))
  }

  fastify.get<{ Querystring: ImageQuery }>(
    optimizerPath,
    {
      schema: { querystring: imageQuerySchema },
      schemaErrorFormatter: imageQueryErrorFormatter,
      preValidation: refuseRepeatedParameters,
    },
    function serveImage(request, reply) {
      return tracing.inSpan(request, 'courier.image', undefined, (span) => answerImage(request, reply, span))
    },
  )

  /** A local path under `/content/images/` is an image of the content: read now, by the content's rules. */
  async function contentSource(source: ImageSource): Promise<ImageSource> {
    if (!content || source.kind !== 'local' || !source.path.startsWith(contentImages.urlPrefix)) return source
    const bytes = await content.image(source.path.slice(contentImages.urlPrefix.length))
    if (!bytes) throw new errors.ImageNotFound(source.path)
    return { kind: 'content', path: source.path, bytes, hash: createHash('sha256').update(bytes).digest('base64url') }
  }

  async function answerImage(
    request: FastifyRequest<{ Querystring: ImageQuery }>,
    reply: FastifyReply,
    span: TraceSpan,
  ) {
    const { url, w: width, q: quality = limits.defaultQuality } = request.query
    const source = await contentSource(parseImageUrl(url, origins))
    const accepted = acceptedFormats(request.headers.accept)
    const key = cacheKey(source, width, quality, accepted)
    const job: ImageJob = { url, source, width, quality, accepted, client: request.ip }
    const preferred = accepted.avif ? 'avif' : accepted.webp ? 'webp' : 'source'
    span.setAttributes({
      'courier.image.source': source.kind,
      'courier.image.width': width,
      'courier.image.quality': quality,
      'courier.image.format': preferred,
    })

    const ifNoneMatch = request.headers['if-none-match']

    const found = await lookUp(key)
    if (found) {
      const { entry } = found
      const stale = entry.expiresAt <= now()
      entry.headers ??= imageHeaders(entry)
      const notModified = matchesIfNoneMatch(ifNoneMatch, entry.etag)
      // None for a 304; in memory for hot entries (no await then), else read or streamed from its file.
      const body = notModified ? undefined : (entry.body ?? (await cache.body(entry)))
      if (notModified || body) {
        if (stale) optimizer.refresh(key, job, request.log)
        span.setAttributes({ 'courier.image.cache': stale ? 'stale' : 'hit' })
        return sendImage(reply, metrics, entry.headers, stale ? 'STALE' : 'HIT', found.tier, body)
      }
    }
    span.setAttributes({ 'courier.image.cache': 'miss' })
    const produced = await optimizer.produce(key, job, request.log, span).catch((error: unknown) => {
      if (error instanceof errors.ImageBusy) answerBusy(request, reply, error)
      throw error
    })
    const notModified = matchesIfNoneMatch(ifNoneMatch, produced.meta.etag)
    return sendImage(
      reply,
      metrics,
      imageHeaders(produced.meta),
      'MISS',
      'none',
      notModified ? undefined : produced.bytes,
    )
  }
}

export default fp(image, { name: 'courier-image', fastify: '5.x' })
