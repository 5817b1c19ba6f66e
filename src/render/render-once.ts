import type { ReactNode } from 'react'
import { documentNoncePlaceholder, splitAtNonce, type KeptDocument } from './document-cache.ts'
import { renderStream } from './stream.ts'

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
  let stop: ((reason: Error) => void) | undefined
  let render
  try {
    render = await renderStream({
      element: options.element,
      opening: options.opening(documentNoncePlaceholder),
      closing: () => options.closing(documentNoncePlaceholder),
      nonce: documentNoncePlaceholder,
      timeoutMs: options.timeoutMs,
      onError(error) {
        if (!failed) {
          failed = true
          stop?.(error instanceof Error ? error : new Error('render failed'))
        }
        return undefined
      },
    })
  } catch {
    return 'shell-error'
  }
  stop = render.abort
  if (failed) render.abort(new Error('render failed'))
  const chunks: Buffer[] = []
  for await (const chunk of render.stream) chunks.push(chunk as Buffer)
  if (failed) return 'render-error'
  return splitAtNonce(Buffer.concat(chunks).toString('utf8'), options.headAt) ?? 'placeholder-outside-nonce'
}
