import type { FastifyReply, FastifyRequest } from 'fastify'
import type { OutputFormat } from '../../config/images.ts'
import type { ContentReadStats } from '../content/content-files.ts'

/**
 * What the rest of Courier tells the metrics (plugins/metrics.ts decorates `fastify.metrics` with it when
 * METRICS_PORT is set). Types only: a module that calls `fastify.metrics?.…` imports nothing of prom-client, and
 * without METRICS_PORT the decorator is absent and each call is one property read. Every label value is one of the
 * unions below or a route template: none comes from the request.
 */
export interface MetricsRecorder {
  /** A response finished (every route's onResponse; app.ts for a request the router refused): its duration. */
  responseFinished(request: FastifyRequest, reply: FastifyReply): void
  /** A document sent from its kept bytes (a `static` page, an error page without digest): no render. */
  keptDocumentSent(request: FastifyRequest, document: DocumentKind): void
  /** A streamed render's shell is out, `seconds` after the render started. */
  renderShellReady(request: FastifyRequest, document: DocumentKind, seconds: number): void
  /** A streamed render finished every boundary (not aborted), `seconds` after it started. */
  renderAllReady(request: FastifyRequest, document: DocumentKind, seconds: number): void
  /** One answer of the page-data route (plugins/page-data.ts). */
  pageDataAnswered(kind: PageDataKind, answer: PageDataOutcome): void
  /** A kept page's regeneration ended (plugins/pages.ts): why it ran, how it ended, how long it took. */
  pageRegenerated(reason: RegenerationReason, outcome: RegenerationOutcome, seconds: number): void
  /** A kept page instance pushed out by the bounds of the kept pages (count or bytes). */
  keptPageEvicted(): void
  /** One image response of the optimizer (plugins/image.ts): where its bytes came from. */
  imageServed(state: ImageCacheState, tier: ImageCacheTier): void
  /** One transform by sharp, from the queue's start to its end. */
  imageTransformed(format: OutputFormat, seconds: number): void
  /** The transform queue whose length and running count a scrape reads. */
  watchTransformQueue(queue: TransformQueueState): void
  /** A request refused before any work: load shedding (plugins/load-shedding.ts) or the drain (plugins/drain.ts). */
  requestShed(reason: ShedReason): void
  /** The reads of CONTENT_DIR (src/content/content-files.ts), read at scrape time. */
  watchContentReads(read: () => ContentReadStats): void
}

export type DocumentKind = 'page' | 'error'
export type RegenerationReason = 'time' | 'path' | 'tag'
export type RegenerationOutcome = 'regenerated' | 'removed' | 'failed'
/** `none`: the data URL names no page of the site (or another deployment). */
export type PageDataKind = 'static' | 'dynamic' | 'none'
export type PageDataOutcome = 'props' | 'redirect' | 'not_found' | 'not_modified' | 'deployment_skew'
export type ImageCacheState = 'hit' | 'stale' | 'miss'
/** `disk`: this instance's cache (its memory tier included); `redis`: the shared tier (REDIS_URL); `none`: made now. */
export type ImageCacheTier = 'disk' | 'redis' | 'none'
export type ShedReason = 'overload' | 'draining' | 'image_busy'

export interface TransformQueueState {
  readonly queued: number
  readonly running: number
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Present only with METRICS_PORT (plugins/metrics.ts). */
    metrics?: MetricsRecorder
  }
}
