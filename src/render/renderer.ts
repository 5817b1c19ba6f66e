import type { FastifyRequest } from 'fastify'
import type { PieceCoding } from '../compression/pieces.ts'
import { assignDigest } from '../digest.ts'
import type { KeptDocument } from './document-cache.ts'
import { documentName, headFor, stateFor, type RenderTarget } from './document-target.ts'
import { lateErrorScreen } from './error-documents.ts'
import type { PagePreloads } from './page-preloads.ts'
import { renderOnce } from './render-once.ts'
import { serializeForScript } from '../common/script-json.ts'
import { ClientGoneError, RenderTimeoutError, renderStream, type StreamRender } from './stream.ts'
import type { DocumentHead, DocumentTemplate } from './template.ts'
import type { DocumentSource } from './vite-client.ts'

/** What the caller learns of a streamed render as it goes (tracing and metrics, src/delivery/respond.ts). */
export interface RenderWatch {
  /** Every error React reports, with the digest the client is given for it (none when the client went away). */
  onError(error: unknown, digest: string | undefined): void
  onShellReady?: (() => void) | undefined
  onAllReady?: (() => void) | undefined
}

/** What a streamed document opens with: its template and head, which the sender frames the stream from. */
export interface DocumentOpening {
  template: DocumentTemplate
  head: DocumentHead
}

/**
 * How the stream is written, as the sender chose it (src/delivery/send.ts `streamCoding`): the pieces' coding, and
 * the opening the stream writes before React's output ('' where a kept opening already starts the pieces).
 */
export interface StreamFraming {
  pieces: PieceCoding
  opening: string | Buffer
}

export interface RendererOptions {
  source: DocumentSource
  deploymentId: string
  renderTimeoutMs: number
  /** The chunks a page needs beyond the entry (production); none in development, where Vite serves modules. */
  preloadsFor?: ((pageId: string) => PagePreloads) | undefined
}

/** The renderer: it makes documents, as bytes to keep or as a stream; how they go on the wire is the sender's. */
export interface DocumentRenderer {
  /**
   * Renders the document of `target` once, with the placeholder nonce, for keeping (a `static` page instance, an error
   * page without a digest); undefined when it is not worth keeping (its requests stream).
   */
  renderKept(request: FastifyRequest, target: RenderTarget): Promise<KeptDocument | undefined>
  /** The template and head a streamed document of `target` opens with. */
  openingOf(target: RenderTarget): DocumentOpening
  /**
   * Streams the document of `target` for this request, framed as the sender chose from `opening`: resolves when the
   * shell is ready; an error before that rejects, for the error handler to answer.
   */
  renderStream(
    request: FastifyRequest,
    target: RenderTarget,
    opening: DocumentOpening,
    framing: StreamFraming,
    watch: RenderWatch,
  ): Promise<StreamRender>
}

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
 * The document renderer. A document that is the same for every request but for its nonce is rendered once with a
 * placeholder nonce, for the caller to keep; any other streams with renderToPipeableStream.
 */
export function createDocumentRenderer(options: RendererOptions): DocumentRenderer {
  const { source, deploymentId, renderTimeoutMs, preloadsFor } = options

  async function renderKept(request: FastifyRequest, target: RenderTarget) {
    const template = source.template()
    const state = stateFor(target, deploymentId, '')
    const stateJson = serializeForScript(state)
    const head = headFor(target, preloadsFor)
    const result = await renderOnce({
      element: await source.client().createElement(state),
      opening: (nonce) => template.open(head, nonce),
      closing: (nonce) => template.close(stateJson, nonce),
      headAt: template.headTagsAt,
      timeoutMs: renderTimeoutMs,
    }).catch(() => 'render-error' as const)
    if (typeof result === 'string') {
      request.log.debug({ document: documentName(target), reason: result }, 'document not kept')
      return undefined
    }
    request.log.debug({ document: documentName(target), bytes: result.length }, 'document rendered once')
    return result
  }

  function openingOf(target: RenderTarget): DocumentOpening {
    return { template: source.template(), head: headFor(target, preloadsFor) }
  }

  async function renderDocumentStream(
    request: FastifyRequest,
    target: RenderTarget,
    { template }: DocumentOpening,
    framing: StreamFraming,
    watch: RenderWatch,
  ): Promise<StreamRender> {
    const nonce = request.cspNonce
    const state = stateFor(target, deploymentId, request.host)
    const element = await source.client().createElement(state, nonce)
    // The first boundary that failed: once the shell is out, the document ends with the error screen for it.
    let failedBoundaryDigest: string | undefined
    return renderStream({
      element,
      coding: framing.pieces,
      opening: framing.opening,
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
  }

  return { renderKept, openingOf, renderStream: renderDocumentStream }
}
