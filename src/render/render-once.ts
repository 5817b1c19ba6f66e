import { PassThrough } from 'node:stream'
import type { ReactNode } from 'react'
import { documentNoncePlaceholder, splitAtNonce, type KeptDocument } from './document-cache.ts'
import { renderUnderTimeOut, renderWhole, type TimedRender } from './stream.ts'

export interface RenderOnceOptions {
  element: ReactNode
  /** The document around the app, as the streaming path builds it, for the nonce given. */
  opening: (nonce: string) => string
  closing: (nonce: string) => string
  /** Where per-request head tags go in the document (src/render/template.ts), if anywhere. */
  headAt?: number | undefined
  timeoutMs: number
}

/** Why a render was not kept (logged at debug level by the caller). */
export type NotKept = 'shell-error' | 'render-error' | 'placeholder-outside-nonce'

/**
 * Renders a whole document with the placeholder nonce, for keeping: the same render as the streaming path, to the
 * end, with nobody reading. Any error React reports (a failed boundary, the time-out) makes it worthless: it is
 * aborted at once and nothing is kept; the requests waiting for it stream their own render, which reports the error
 * with its digest as usual.
 */
export async function renderOnce(options: RenderOnceOptions): Promise<KeptDocument | NotKept> {
  let failed = false
  let render: TimedRender | undefined
  try {
    render = await renderUnderTimeOut((hooks) => renderWhole(options.element, documentNoncePlaceholder, hooks), {
      timeoutMs: options.timeoutMs,
      onError(error) {
        if (!failed) {
          failed = true
          render?.body.abort(error instanceof Error ? error : new Error('render failed'))
        }
        return undefined
      },
    })
  } catch {
    return 'shell-error'
  }
  if (failed) render.body.abort(new Error('render failed'))
  const body = new PassThrough()
  render.body.pipe(body)
  const chunks: Buffer[] = [Buffer.from(options.opening(documentNoncePlaceholder))]
  for await (const chunk of body) chunks.push(chunk as Buffer)
  render.finish()
  if (failed) return 'render-error'
  chunks.push(Buffer.from(options.closing(documentNoncePlaceholder)))
  return splitAtNonce(Buffer.concat(chunks).toString('utf8'), options.headAt) ?? 'placeholder-outside-nonce'
}
