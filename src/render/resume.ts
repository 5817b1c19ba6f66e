import type { FastifyReply, FastifyRequest } from 'fastify'
import type { PostponedState } from 'react-dom/static'
import type { LiveData } from '../../site/page-types.ts'
import type { PageDefinition, RouteParams } from '../../site/pages.ts'
import { gzipPieces, identityPieces, PieceStream } from '../compression/pieces.ts'
import type { Sender } from '../delivery/send.ts'
import { assignDigest } from '../digest.ts'
import type { MetricsRecorder } from '../metrics/recorder.ts'
import { pageCacheControl } from '../pages/cache-control.ts'
import { documentBytes, gzipStartOf } from './document-cache.ts'
import { documentName, headFor, stateFor, type RenderTarget } from './document-target.ts'
import { lateErrorScreen } from './error-documents.ts'
import type { PagePreloads } from './page-preloads.ts'
import { prerenderShell, shellNonce, type PartialShell } from './partial-prerender.ts'
import { serializeForScript } from './serialize.ts'
import { allowScriptHashes } from './shell-hash.ts'
import { ClientGoneError, RenderTimeoutError } from './stream.ts'
import type { DocumentSource } from './vite-client.ts'

/** A request for a partly prerendered page: its kept data (and the object it is kept by), its request-time data. */
export interface PartialRequest {
  page: PageDefinition
  params: RouteParams
  /** The kept version its data belongs to (a `static` page entry, src/pages/answers.ts): a new version, a new shell. */
  version: object
  kept: unknown
  live: Promise<LiveData<unknown>>
}

/**
 * Sends a partly prerendered page from its kept shell: true once it is on its way; false when there is no shell (the
 * caller renders the page whole). Not the reply itself: a reply is thenable, and awaiting it waits for its end.
 */
export type RenderPartialDocument = (
  request: FastifyRequest,
  reply: FastifyReply,
  partial: PartialRequest,
) => Promise<boolean>

export interface PartialResponderOptions {
  source: DocumentSource
  deploymentId: string
  renderTimeoutMs: number
  preloadsFor?: ((pageId: string) => PagePreloads) | undefined
  sender: Sender
  /** The document's per-request head tags (the `traceparent` meta). */
  headTags: (request: FastifyRequest) => string
  /** Told of the times to the shell (sent at once) and to the last hole (METRICS_PORT); none when metrics are off. */
  metrics?: MetricsRecorder | undefined
}

/** The pending request-time data a shell is prerendered with: never settles, so whatever reads it is a hole. */
const neverSettles: Promise<LiveData<unknown>> = new Promise(() => undefined)

/**
 * Partial prerendering (docs/rendering.md "Partial prerendering"). A page's shell is prerendered once per kept
 * version of its data (src/render/partial-prerender.ts) and kept with it: a revalidated version gets its own shell,
 * so prelude, postponed state and kept data always belong together. Per request the shell goes out at once with the
 * request's nonce, before the request-time loader has answered, then `resumeToPipeableStream` streams the holes
 * with the same nonce, then the document's end: the hydration state with both kinds of data, under the nonce.
 */
export function createPartialResponder(options: PartialResponderOptions): RenderPartialDocument {
  const { source, deploymentId, renderTimeoutMs, preloadsFor, sender, headTags, metrics } = options
  const shells = new WeakMap<object, Promise<PartialShell | undefined>>()
  // `react-dom/server` whole (it holds `resumeToPipeableStream`), imported on the first partly prerendered request:
  // a site without such pages never loads it (src/render/streaming-renderer.ts loads the streaming renderer alone).
  let server: Promise<typeof import('react-dom/server')> | undefined

  function targetOf(partial: PartialRequest, live: LiveData<unknown>): RenderTarget {
    return { type: 'page', page: partial.page, params: partial.params, data: { kept: partial.kept, live } }
  }

  /** The shell of a kept version, prerendered on first use; concurrent first requests share the one prerender. A
   * prerender that failed is forgotten (the next request tries again); a page without holes keeps none. */
  function shellOf(request: FastifyRequest, partial: PartialRequest): Promise<PartialShell | undefined> {
    let shell = shells.get(partial.version)
    if (!shell) {
      const target = targetOf(partial, { pending: neverSettles })
      shell = (async () => {
        const element = await source.client().createElement(stateFor(target, deploymentId, ''))
        const result = await prerenderShell(element, source.template().open(headFor(target, preloadsFor), shellNonce))
        const headAt = source.template().headTagsAt
        if (typeof result !== 'string') return { ...result, document: { ...result.document, headAt } }
        request.log.debug({ document: documentName(target), reason: result }, 'shell not kept')
        if (result !== 'no-holes') shells.delete(partial.version)
        return undefined
      })().catch((error: unknown) => {
        // The request renders the page whole instead, which reports the error with its digest if it persists.
        request.log.debug({ document: documentName(target), err: error }, 'shell not kept')
        shells.delete(partial.version)
        return undefined
      })
      shells.set(partial.version, shell)
    }
    return shell
  }

  /** Resumes the holes of `shell` for this request: the tree built from the same kept data, the request's nonce. */
  async function resumeHoles(
    request: FastifyRequest,
    partial: PartialRequest,
    shell: PartialShell,
    live: () => LiveData<unknown> | undefined,
    onError: (error: unknown) => string | undefined,
    onAllReady: () => void,
  ) {
    const { resumeToPipeableStream } = await (server ??= import('react-dom/server'))
    // Data that has come already is given as it is: its holes render in React's first pass, without suspending.
    const data = live() ?? { pending: partial.live }
    const element = await source.client().createElement(stateFor(targetOf(partial, data), deploymentId, request.host))
    const postponed = JSON.parse(shell.postponed) as PostponedState
    return resumeToPipeableStream(element, postponed, { nonce: request.cspNonce, onError, onAllReady })
  }

  return async function renderPartialDocument(request, reply, partial) {
    const started = performance.now()
    const shell = await shellOf(request, partial)
    if (!shell) return false
    const seconds = () => (performance.now() - started) / 1000
    const nonce = request.cspNonce
    const tags = Buffer.from(headTags(request))
    const coding = sender.codingFor(request, 'streamedDocument')
    const sent = documentBytes(shell.document, nonce, tags)
    let live: LiveData<unknown> | undefined
    void partial.live.then((settled) => (live = settled))
    let failedDigest: string | undefined
    const template = source.template()
    const stream = new PieceStream({
      coding: coding === 'gzip' ? gzipPieces(gzipStartOf(shell.document, nonce, tags), sent) : identityPieces,
      opening: coding === 'gzip' ? '' : sent.toString('utf8'),
      closing: () => {
        const settled = live ?? { failed: { digest: failedDigest ?? '', host: request.host } }
        const state = serializeForScript(stateFor(targetOf(partial, settled), deploymentId, request.host))
        return template.close(state, nonce, failedDigest ? lateErrorScreen(request.host, failedDigest) : '')
      },
    })
    // The shell goes out now, whatever the holes wait for: an empty write sends the opening as the first piece.
    stream.write(Buffer.alloc(0))
    let stop: ((reason: Error) => void) | undefined
    let stopped: Error | undefined
    const abort = (reason: Error) => (stop ? stop(reason) : (stopped = reason))
    const timedOut = () => new RenderTimeoutError(`render did not finish within ${renderTimeoutMs} ms`)
    const timer = setTimeout(() => abort(timedOut()), renderTimeoutMs)
    timer.unref()
    stream.once('close', () => clearTimeout(timer)).once('end', () => clearTimeout(timer))
    allowScriptHashes(reply, shell.scriptHashes)
    reply.code(200).type('text/html; charset=utf-8').header('cache-control', pageCacheControl.dynamic)
    sender.sendStream(request, reply, coding, stream, abort)
    metrics?.renderShellReady(request, 'page', seconds())
    const onError = (error: unknown) => {
      if (error instanceof ClientGoneError) return undefined
      const { digest, isNew } = assignDigest(error, request.id)
      if (isNew && error instanceof RenderTimeoutError) request.log.warn({ err: error, digest }, 'render timed out')
      else if (isNew) request.log.error({ err: error, digest }, 'render failed')
      failedDigest ??= digest
      return digest
    }
    const onAllReady = () => metrics?.renderAllReady(request, 'page', seconds())
    resumeHoles(request, partial, shell, () => live, onError, onAllReady).then(
      (resumed) => {
        stop = (reason) => resumed.abort(reason)
        if (stopped) resumed.abort(stopped)
        resumed.pipe(stream)
      },
      (error: unknown) => {
        const { digest } = assignDigest(error, request.id)
        request.log.error({ err: error, digest }, 'render failed')
        failedDigest ??= digest
        stream.end()
      },
    )
    return true
  }
}
