import type { FastifyRequest } from 'fastify'
import type { Readable } from 'node:stream'
import type { Coding } from '../compression/negotiate.ts'
import type { StreamCoding } from '../delivery/send.ts'
import { assignDigest } from '../digest.ts'
import type { KeptDocument, KeptDocumentSlot } from './document-cache.ts'
import { documentName, headFor, stateFor, type RenderTarget } from './document-target.ts'
import { lateErrorScreen } from './error-documents.ts'
import type { PagePreloads } from './page-preloads.ts'
import { renderOnce } from './render-once.ts'
import { serializeForScript } from './serialize.ts'
import { ClientGoneError, RenderTimeoutError, renderStream } from './stream.ts'
import type { DocumentHead, DocumentTemplate } from './template.ts'
import type { DocumentSource } from './vite-client.ts'

/** What a render gives: the kept document (the same for every request but its insertions), or a stream of this one. */
export type RenderedDocument =
  | { type: 'kept'; document: KeptDocument }
  | { type: 'stream'; stream: Readable; coding: Coding; abort: (reason: Error) => void }

/** What the caller learns of a render as it goes (tracing and metrics, src/render/respond.ts), and what it adds. */
export interface RenderWatch {
  /** Per-request tags for the head of a streamed document (the `traceparent` meta). */
  headTags: string
  /** Every error React reports, with the digest the client is given for it (none when the client went away). */
  onError(error: unknown, digest: string | undefined): void
  /** The stream's render starts (after any attempt to keep the document): where its times count from. */
  onStreamStart?: (() => void) | undefined
  onShellReady?: (() => void) | undefined
  onAllReady?: (() => void) | undefined
}

export interface RendererOptions {
  source: DocumentSource
  deploymentId: string
  renderTimeoutMs: number
  /** The chunks a page needs beyond the entry (production); none in development, where Vite serves modules. */
  preloadsFor?: ((pageId: string) => PagePreloads) | undefined
  /** The coding of a streamed document, chosen before its render starts (src/delivery/send.ts). */
  streamCoding: (request: FastifyRequest, template: DocumentTemplate, head: DocumentHead, headTags: string) => StreamCoding
}

/** Renders a document: from its slot (rendered once, kept) when it has one, else as a stream for this request. */
export type RenderDocumentBytes = (
  request: FastifyRequest,
  target: RenderTarget,
  slot: KeptDocumentSlot | undefined,
  watch: RenderWatch,
) => Promise<RenderedDocument>

function reportRenderError(request: FastifyRequest, error: unknown): string | undefined {
  if (error instanceof ClientGoneError) return undefined
  const { digest, isNew } = assignDigest(error, request.id)
  if (isNew) {
    if (error instanceof RenderTimeoutError) request.log.warn({ err: error, digest }, 'render timed out')
    else request.log.error({ err: error, digest }, 'render failed')
  }
  return digest
}

/**
 * The document renderer. A document that is the same for every request but for its nonce (a `static` page instance,
 * an error page without a digest) is rendered once with a placeholder nonce and kept in its slot; the sender puts each
 * request's nonce in. Any other document streams with renderToPipeableStream, resolving when the shell is ready: an
 * error before that rejects, for the error handler to answer.
 */
export function createDocumentRenderer(options: RendererOptions): RenderDocumentBytes {
  const { source, deploymentId, renderTimeoutMs, preloadsFor, streamCoding } = options

  /** Renders the document of `target` once, with the placeholder nonce; undefined when it is not worth keeping. */
  async function renderKept(request: FastifyRequest, template: DocumentTemplate, target: RenderTarget) {
    const state = stateFor(target, deploymentId, '')
    const stateJson = serializeForScript(state)
    const head = headFor(target, preloadsFor)
    const result = await renderOnce({
      element: await source.client().createElement(state),
      opening: (nonce) => template.open(head, nonce),
      closing: (nonce) => template.close(stateJson, nonce),
      timeoutMs: renderTimeoutMs,
    }).catch(() => 'render-error' as const)
    if (typeof result === 'string') {
      request.log.debug({ document: documentName(target), reason: result }, 'document not kept')
      return undefined
    }
    request.log.debug({ document: documentName(target), bytes: result.length }, 'document rendered once')
    return { ...result, headAt: template.headTagsAt }
  }

  return async function renderDocumentBytes(request, target, slot, watch) {
    const template = source.template()
    const document = slot ? await slot.get(() => renderKept(request, template, target)) : undefined
    if (document) return { type: 'kept', document }
    watch.onStreamStart?.()
    const nonce = request.cspNonce
    const state = stateFor(target, deploymentId, request.host)
    const element = await source.client().createElement(state)
    // The first boundary that failed: once the shell is out, the document ends with the error screen for it.
    let failedBoundaryDigest: string | undefined
    const { coding, pieces, opening } = streamCoding(request, template, headFor(target, preloadsFor), watch.headTags)
    const { stream, abort } = await renderStream({
      element,
      coding: pieces,
      opening,
      closing: () =>
        template.close(
          serializeForScript(state),
          nonce,
          failedBoundaryDigest ? lateErrorScreen(request.host, failedBoundaryDigest) : '',
        ),
      nonce,
      timeoutMs: renderTimeoutMs,
      onError(error) {
        const digest = reportRenderError(request, error)
        failedBoundaryDigest ??= digest
        watch.onError(error, digest)
        return digest
      },
      onShellReady: watch.onShellReady,
      onAllReady: watch.onAllReady,
    })
    return { type: 'stream', stream, coding, abort }
  }
}
