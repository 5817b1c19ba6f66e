import type { Transform } from 'node:stream'
import type { ReactNode } from 'react'
import { renderToPipeableStream } from 'react-dom/server'
import { identityPieces, PieceStream, type PieceCoding } from '../compression/pieces.ts'

export interface StreamRenderOptions {
  element: ReactNode
  /** The HTML before React's output, and after it (asked for when React ends). */
  opening: string | Buffer
  closing: () => string
  /** How the document goes on the wire (gzip pieces, or as it is); React's output of one turn is one piece. */
  coding?: PieceCoding | undefined
  nonce: string | undefined
  /** Abort the render after this long: the client keeps what was flushed, pending boundaries render on the client. */
  timeoutMs: number
  /** Called for every error React reports; returns the digest React hands to the client for that boundary. */
  onError: (error: unknown) => string | undefined
  /** Called when the shell is ready, before the document starts to flow. */
  onShellReady?: (() => void) | undefined
  /** Called once every boundary has rendered, unless the render was aborted (time-out, client gone). */
  onAllReady?: (() => void) | undefined
}

export interface StreamRender {
  stream: Transform
  /** Stops the render (client gone, or the server closing); pending boundaries end as errors. */
  abort: (reason: Error) => void
}

export class RenderTimeoutError extends Error {
  override name = 'RenderTimeoutError'
}

/** The client is gone: pending boundaries end quietly, nothing is logged as a server error. */
export class ClientGoneError extends Error {
  override name = 'ClientGoneError'
}

/**
 * Renders with renderToPipeableStream and resolves once the shell is ready, so an error before the shell can still
 * become a 500 page; rejects with the shell error otherwise.
 */
export function renderStream(options: StreamRenderOptions): Promise<StreamRender> {
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined
    let aborted = false
    const stream = new PieceStream({
      coding: options.coding ?? identityPieces,
      opening: options.opening,
      closing: options.closing,
    })
    const clearTimer = () => clearTimeout(timer)
    stream.once('close', clearTimer).once('end', clearTimer)

    const render = renderToPipeableStream(options.element, {
      nonce: options.nonce,
      onShellReady() {
        options.onShellReady?.()
        render.pipe(stream)
        resolve({
          stream,
          abort: (reason) => {
            aborted = true
            render.abort(reason)
          },
        })
      },
      onAllReady() {
        if (!aborted) options.onAllReady?.()
      },
      onShellError(error) {
        clearTimer()
        reject(error)
      },
      onError(error) {
        return options.onError(error)
      },
    })
    timer = setTimeout(() => {
      aborted = true
      render.abort(new RenderTimeoutError(`render did not finish within ${options.timeoutMs} ms`))
    }, options.timeoutMs)
    timer.unref()
  })
}
