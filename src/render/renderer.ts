import type { FastifyRequest } from 'fastify'
import { assignDigest } from '../digest.ts'
import type { KeptDocument, KeptDocumentSlot } from './document-cache.ts'
import { documentName, headFor, stateFor, type RenderTarget } from './document-target.ts'
import { lateErrorScreen } from './error-documents.ts'
import type { HoleTurnLimits } from './hole-turns.ts'
import type { PagePreloads } from './page-preloads.ts'
import { renderOnce } from './render-once.ts'
import { createPartialRenderer, partialTarget, type PartialRequest } from './resume.ts'
import { serializeForScript } from '../common/script-json.ts'
import {
  ClientGoneError,
  RenderTimeoutError,
  renderUnderTimeOut,
  renderWhole,
  type DocumentRender,
  type RenderHooks,
  type StreamedDocument,
} from './stream.ts'
import type { DocumentSource } from './vite-client.ts'

/**
 * What a document is rendered from (docs/rendering.md): a target rendered whole (with the slot a static page's
 * document is kept in), or a partly prerendered page, resumed from its kept shell where there is one and rendered
 * whole where there is none.
 */
export type DocumentAnswer =
  | { type: 'whole'; target: RenderTarget; kept?: KeptDocumentSlot | undefined }
  | { type: 'partial'; partial: PartialRequest }

/** What the caller learns of a streamed render as it goes (tracing and metrics, src/delivery/respond.ts). */
export interface RenderWatch {
  /** The render starts (after any attempt to keep the document): its times count from here. */
  onStart(): void
  /** Every error React reports, with the digest the client is given for it (none when the client went away). */
  onError(error: unknown, digest: string | undefined): void
  onAllReady?: (() => void) | undefined
}

export interface RendererOptions {
  source: DocumentSource
  deploymentId: string
  renderTimeoutMs: number
  /** How partly prerendered documents resume their holes in turns with new requests (src/render/hole-turns.ts). */
  holeTurns: HoleTurnLimits
  /** Keep partly prerendered pages' shells: off in development, where such pages render whole. */
  keepShells: boolean
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
  /**
   * Renders the document of `answer` for this request, in plain bytes (its prelude, React's body, its closing):
   * resolves when the shell is ready; an error before that rejects, for the error handler to answer.
   */
  renderStream(request: FastifyRequest, answer: DocumentAnswer, watch: RenderWatch): Promise<StreamedDocument>
}

/** Logs an error of a streamed render once, with its digest; none when the client went away. */
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
 * placeholder nonce, for the caller to keep; any other streams: whole with renderToPipeableStream after the
 * template's opening, or its holes resumed after a kept shell (src/render/resume.ts). Every kind shares the time-out,
 * the error reporting and the closing with the error screen of the first boundary that failed.
 */
export function createDocumentRenderer(options: RendererOptions): DocumentRenderer {
  const { source, deploymentId, renderTimeoutMs, preloadsFor, keepShells } = options
  const partials = createPartialRenderer({ source, deploymentId, holeTurns: options.holeTurns, preloadsFor })

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

  /** The whole document of `target`: the template's opening, React's render, the template's end. */
  async function renderWholeDocument(request: FastifyRequest, target: RenderTarget, hooks: RenderHooks) {
    const nonce = request.cspNonce
    const state = stateFor(target, deploymentId, request.host)
    const element = await source.client().createElement(state, nonce)
    const template = source.template()
    return {
      ...renderWhole(element, nonce, hooks),
      prelude: { type: 'template', template, head: headFor(target, preloadsFor) },
      closing: (failedDigest) =>
        template.close(
          serializeForScript(state),
          nonce,
          failedDigest ? lateErrorScreen(request.host, failedDigest) : '',
        ),
    } satisfies DocumentRender
  }

  /** The render of `answer`'s kind: resumed from a kept shell, or whole (a partly prerendered page without one). */
  async function startRender(
    request: FastifyRequest,
    answer: DocumentAnswer,
  ): Promise<(hooks: RenderHooks) => DocumentRender | Promise<DocumentRender>> {
    if (answer.type === 'whole') return (hooks) => renderWholeDocument(request, answer.target, hooks)
    const { partial } = answer
    const shell = keepShells ? await partials.shellOf(request, partial) : undefined
    if (shell) return (hooks) => partials.resume(request, partial, shell, hooks)
    const target = partialTarget(partial, await partial.live)
    return (hooks) => renderWholeDocument(request, target, hooks)
  }

  async function renderStream(
    request: FastifyRequest,
    answer: DocumentAnswer,
    watch: RenderWatch,
  ): Promise<StreamedDocument> {
    const start = await startRender(request, answer)
    // The first boundary that failed: once the shell is out, the document ends with the error screen for it.
    let failedDigest: string | undefined
    const { started, body, finish } = await renderUnderTimeOut(
      (hooks) => {
        watch.onStart()
        return start(hooks)
      },
      {
        timeoutMs: renderTimeoutMs,
        onError(error) {
          const digest = reportRenderError(request, error)
          failedDigest ??= digest
          watch.onError(error, digest)
          return digest
        },
        onAllReady: watch.onAllReady,
      },
    )
    return {
      prelude: started.prelude,
      body,
      closing() {
        finish()
        return started.closing(failedDigest)
      },
    }
  }

  return { renderKept, renderStream }
}
