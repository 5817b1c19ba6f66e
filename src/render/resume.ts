import type { FastifyRequest } from 'fastify'
import type { PostponedState } from 'react-dom/static'
import type { LiveData } from '../common/page-types.ts'
import type { PageDefinition, RouteParams } from '../common/page-types.ts'
import { documentName, headFor, stateFor, type RenderTarget } from './document-target.ts'
import { lateErrorScreen } from './error-documents.ts'
import type { PagePreloads } from './page-preloads.ts'
import { createHoleTurns, type HoleTurnLimits } from './hole-turns.ts'
import { prerenderShell, shellNonce, type PartialShell } from './partial-prerender.ts'
import { serializeForScript } from '../common/script-json.ts'
import type { DocumentBody, DocumentRender, RenderHooks } from './stream.ts'
import type { DocumentSource } from './vite-client.ts'

/** A request for a partly prerendered page: its kept data (and the version it is kept by), its request-time data. */
export interface PartialRequest {
  page: PageDefinition
  params: RouteParams
  /** The kept version its data belongs to (src/pages/page-version.ts): a new version, a new shell. */
  version: object
  kept: unknown
  live: Promise<LiveData<unknown>>
}

export interface PartialRendererOptions {
  source: DocumentSource
  deploymentId: string
  /** How resumes share the event loop with new requests' shells (src/render/hole-turns.ts). */
  holeTurns: HoleTurnLimits
  preloadsFor?: ((pageId: string) => PagePreloads) | undefined
}

/** A kept shell with what the documents resumed from it end with. */
export interface ResumableShell extends PartialShell {
  /** The hydration state of a document whose holes carried the request-time data: the kept data alone, the same for
   * every request of the version. */
  stateJson: string
}

/** The render of partly prerendered pages, a prelude kind of the renderer (src/render/renderer.ts). */
export interface PartialRenderer {
  /** The kept shell of the request's version, prerendered on first use; undefined: render the page whole. */
  shellOf(request: FastifyRequest, partial: PartialRequest): Promise<ResumableShell | undefined>
  /**
   * The document resumed from `shell` for this request: the shell as its prelude, the holes as its body (their
   * render queued when the body is piped, once the shell is on its way), then the document's end.
   */
  resume(request: FastifyRequest, partial: PartialRequest, shell: ResumableShell, hooks: RenderHooks): DocumentRender
}

/** The pending request-time data a shell is prerendered with: never settles, so whatever reads it is a hole. */
const neverSettles: Promise<LiveData<unknown>> = new Promise(() => undefined)

/**
 * Partial prerendering (docs/rendering.md "Partial prerendering"). A page's shell is prerendered once per kept
 * version of its data (src/render/partial-prerender.ts) and kept with it: a revalidated version gets its own shell,
 * so prelude, postponed state and kept data always belong together. Per request the shell goes out at once with the
 * request's nonce, before the request-time loader has answered, then `resumeToPipeableStream` streams the holes
 * with the same nonce, each carrying the request-time data it was drawn from (client/components/request-time.tsx),
 * then the document's end: the hydration state with the kept data, under the nonce.
 */
export function createPartialRenderer(options: PartialRendererOptions): PartialRenderer {
  const { source, deploymentId, preloadsFor } = options
  const turns = createHoleTurns(options.holeTurns)
  const shells = new WeakMap<object, Promise<ResumableShell | undefined>>()
  // `react-dom/server` whole (it holds `resumeToPipeableStream`), imported on the first partly prerendered request:
  // a site without such pages never loads it.
  let server: Promise<typeof import('react-dom/server')> | undefined

  /** The shell of a kept version, prerendered on first use; concurrent first requests share the one prerender. A
   * prerender that failed is forgotten (the next request tries again); a page without holes keeps none. */
  function shellOf(request: FastifyRequest, partial: PartialRequest): Promise<ResumableShell | undefined> {
    let shell = shells.get(partial.version)
    if (!shell) {
      const target = partialTarget(partial, { pending: neverSettles })
      shell = (async () => {
        const element = await source.client().createElement(stateFor(target, deploymentId, ''))
        const result = await prerenderShell(element, source.template().open(headFor(target, preloadsFor), shellNonce))
        const headAt = source.template().headTagsAt
        if (typeof result !== 'string') {
          const stateJson = serializeForScript({
            ...stateFor(partialTarget(partial), deploymentId, ''),
            liveInHoles: true,
          })
          return { ...result, document: { ...result.document, headAt }, stateJson }
        }
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
    shell: ResumableShell,
    live: () => LiveData<unknown> | undefined,
    hooks: RenderHooks,
  ) {
    const { resumeToPipeableStream } = await (server ??= import('react-dom/server'))
    // Data that has come already is given as it is: its holes render in React's first pass, without suspending.
    const data = live() ?? { pending: partial.live }
    const state = stateFor(partialTarget(partial, data), deploymentId, request.host)
    const element = await source.client().createElement(state, request.cspNonce)
    const postponed = JSON.parse(shell.postponed) as PostponedState
    const { onError, onAllReady } = hooks
    return resumeToPipeableStream(element, postponed, { nonce: request.cspNonce, onError, onAllReady })
  }

  function resume(
    request: FastifyRequest,
    partial: PartialRequest,
    shell: ResumableShell,
    hooks: RenderHooks,
  ): DocumentRender {
    const nonce = request.cspNonce
    let live: LiveData<unknown> | undefined
    void partial.live.then((settled) => (live = settled))
    let stop: ((reason: Error) => void) | undefined
    let stopped: Error | undefined
    const body: DocumentBody = {
      pipe(destination) {
        // The holes' render starts on a later turn of the event loop, once the shell is on the socket (a render
        // started now would run in this turn's microtasks, before the stream's first write), in turns with other
        // requests' shells.
        turns.enqueue(function resumeWhenShellSent() {
          // Timed out or left while it waited: the document ends with the error screen's section, nothing rendered.
          if (stopped) {
            hooks.onError(stopped)
            destination.end()
            return
          }
          resumeHoles(request, partial, shell, () => live, hooks).then(
            (resumed) => {
              stop = (reason) => resumed.abort(reason)
              if (stopped) resumed.abort(stopped)
              resumed.pipe(destination)
            },
            (error: unknown) => {
              hooks.onError(error)
              destination.end()
            },
          )
        })
      },
      abort: (reason) => (stop ? stop(reason) : (stopped = reason)),
    }
    const template = source.template()
    function closing(failedDigest: string | undefined) {
      // Every hole rendered on the server with the request-time data, each carrying it: the state has the rest.
      if (live !== undefined && failedDigest === undefined) return template.close(shell.stateJson, nonce)
      // Else the state carries it, for the holes the browser renders.
      const settled = live ?? { failed: { digest: failedDigest ?? '', host: request.host } }
      const state = serializeForScript(stateFor(partialTarget(partial, settled), deploymentId, request.host))
      return template.close(state, nonce, failedDigest ? lateErrorScreen(request.host, failedDigest) : '')
    }
    const { document, scriptHashes } = shell
    return { prelude: { type: 'shell', document, scriptHashes }, body, closing }
  }

  return { shellOf, resume }
}

/** The page with its kept data and `live`; without `live`, the kept data alone (a state whose holes carried it). */
export function partialTarget(partial: PartialRequest, live?: LiveData<unknown>): RenderTarget {
  const data = live ? { kept: partial.kept, live } : { kept: partial.kept }
  return { type: 'page', page: partial.page, params: partial.params, data }
}
