import type { ReactNode } from 'react'
import { prerenderToNodeStream } from 'react-dom/static'
import { documentNoncePlaceholder, splitAtNonce, type KeptDocument } from './document-cache.ts'
import { inlineScriptHashes } from './shell-hash.ts'

/** The kept half of a partly prerendered page (docs/rendering.md "Partial prerendering"). */
export interface PartialShell {
  /** The document's opening and React's prelude, split at the nonce placeholder: sent and compressed as a kept
   * document is (src/render/document-cache.ts), each request's nonce in between. */
  document: KeptDocument
  /** React's postponed state as JSON: parsed for each request, since resuming changes the object it is given. */
  postponed: string
  /** The CSP source of each inline script of React's in the prelude (without a nonce): `'sha256-…'`. */
  scriptHashes: readonly string[]
}

/** Why a page's shell was not kept (logged at debug level by the caller): its requests render whole instead. */
export type ShellNotKept = 'no-holes' | 'render-error' | 'placeholder-outside-nonce'

/** The reason the prerender is stopped with: its pending boundaries become the holes. Not an error of the page's. */
class ShellComplete extends Error {
  override name = 'ShellComplete'
}

/** Two turns of the event loop: React's work and the pings of what settled meanwhile (nothing of the page's waits on
 * I/O by then: its module is loaded and its kept data resolved before the prerender starts). */
function afterPendingWork(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)))
}

/**
 * Prerenders a page's shell with `prerenderToNodeStream` (`react-dom/static`): `element` is built from the kept data
 * with the request-time data pending, so whatever reads it suspends. Once the work that can finish has finished, the
 * prerender is aborted: the suspended boundaries become the holes, React's postponed state says where they are. Any
 * other error keeps nothing (the page's requests then render whole, and report it with a digest as usual).
 */
export async function prerenderShell(element: ReactNode, opening: string): Promise<PartialShell | ShellNotKept> {
  const controller = new AbortController()
  let failed = false
  const prerendered = prerenderToNodeStream(element, {
    signal: controller.signal,
    onError(error) {
      if (!(error instanceof ShellComplete)) failed = true
      return undefined
    },
  })
  await afterPendingWork()
  controller.abort(new ShellComplete('the shell is complete: what still waits is request-time'))
  const { prelude, postponed } = await prerendered
  const chunks: Buffer[] = []
  for await (const chunk of prelude) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer))
  if (failed) return 'render-error'
  if (postponed === null) return 'no-holes'
  const html = Buffer.concat(chunks).toString('utf8')
  const document = splitAtNonce(opening + html)
  if (!document) return 'placeholder-outside-nonce'
  return { document, postponed: JSON.stringify(postponed), scriptHashes: inlineScriptHashes(html) }
}

/** The opening of a shell: the template's, with the placeholder nonce a kept document is split at. */
export const shellNonce = documentNoncePlaceholder
