import type { Writable } from 'node:stream'
import type { ReactNode } from 'react'
import { renderToPipeableStream } from 'react-dom/server'
import type { KeptDocument } from './document-cache.ts'
import type { DocumentHead, DocumentTemplate } from './template.ts'

/**
 * React's output of a document, unframed: the bytes and strings React writes, as it writes them. The sender pipes it
 * into the stream it frames for the wire (src/delivery/send.ts); the renderer never chooses a coding.
 */
export interface DocumentBody {
  /** Writes React's output into `destination`, and ends it once React is done. */
  pipe(destination: Writable): void
  /** Stops the render (the client gone, the time-out, the server closing): pending boundaries end as errors. */
  abort(reason: Error): void
}

export class RenderTimeoutError extends Error {
  override name = 'RenderTimeoutError'
}

/** The client is gone: pending boundaries end quietly, nothing is logged as a server error. */
export class ClientGoneError extends Error {
  override name = 'ClientGoneError'
}

/** What a render tells of itself as it goes. */
export interface RenderHooks {
  /** Every error React reports; returns the digest React hands to the client for that boundary. */
  onError(error: unknown): string | undefined
  /** Once every boundary has rendered, unless the render was aborted (time-out, client gone). */
  onAllReady(): void
}

/** A render under way: its body, and when its shell is ready (undefined: at once; rejects with a shell error). */
export interface StartedRender {
  body: DocumentBody
  shellReady?: Promise<void> | undefined
}

/**
 * What a streamed document opens with, before React's body: the template's opening for a head, or a kept shell (a
 * partly prerendered page's, with the CSP hashes of React's nonce-less inline scripts in it, src/render/shell-hash.ts).
 * A new kind of render is a new kind of prelude.
 */
export type Prelude =
  | { type: 'template'; template: DocumentTemplate; head: DocumentHead }
  | { type: 'shell'; document: KeptDocument; scriptHashes: readonly string[] }

/** A render of one prelude kind, started: what the document ends with depends on the first boundary that failed. */
export interface DocumentRender extends StartedRender {
  prelude: Prelude
  closing(failedDigest: string | undefined): string
}

/**
 * A document as the renderer gives it, in plain bytes: its prelude, React's body, and its closing (asked for when
 * the body ends). The sender chooses the coding and frames all three.
 */
export interface StreamedDocument {
  prelude: Prelude
  body: DocumentBody
  closing(): string
}

/** A render whose shell is ready: what it started, its body, and `finish`, which stops its time-out at its end. */
export interface TimedRender<R extends StartedRender = StartedRender> {
  started: R
  body: DocumentBody
  finish(): void
}

/** Starts React's render of a whole document with `renderToPipeableStream`. */
export function renderWhole(element: ReactNode, nonce: string | undefined, hooks: RenderHooks): StartedRender {
  let body: DocumentBody | undefined
  const shellReady = new Promise<void>((resolve, reject) => {
    body = renderToPipeableStream(element, {
      nonce,
      onShellReady: resolve,
      onShellError: reject,
      onError: hooks.onError,
      onAllReady: hooks.onAllReady,
    })
  })
  return { body: body!, shellReady }
}

/**
 * Runs a render of any kind under the render time-out, the one timer of every document: past `timeoutMs` it aborts
 * React's render (the client keeps what was flushed, pending boundaries render on the client), as the client's
 * leaving does. Resolves once the shell is ready, so an error before it can still become a 500 page; rejects with
 * the shell error otherwise.
 */
export async function renderUnderTimeOut<R extends StartedRender>(
  start: (hooks: RenderHooks) => R | Promise<R>,
  options: { timeoutMs: number } & Pick<RenderHooks, 'onError'> & Partial<Pick<RenderHooks, 'onAllReady'>>,
): Promise<TimedRender<R>> {
  let aborted = false
  const started = await start({
    onError: options.onError,
    onAllReady: () => {
      if (!aborted) options.onAllReady?.()
    },
  })
  const abort = (reason: Error) => {
    aborted = true
    clearTimeout(timer)
    started.body.abort(reason)
  }
  const timer = setTimeout(
    () => abort(new RenderTimeoutError(`render did not finish within ${options.timeoutMs} ms`)),
    options.timeoutMs,
  )
  timer.unref()
  try {
    await started.shellReady
  } catch (error) {
    clearTimeout(timer)
    throw error
  }
  const body = { pipe: (destination: Writable) => started.body.pipe(destination), abort }
  return { started, body, finish: () => clearTimeout(timer) }
}
