import { createHash } from 'node:crypto'
import type { FastifyReply } from 'fastify'

/**
 * React's `prerenderToNodeStream` takes no nonce: a prelude with a hole carries a small inline script of React's
 * without one (it notes when the shell was painted), which the site's nonce + `strict-dynamic` policy would block.
 * Courier does not rewrite React's output; it allows exactly that script by its hash, in the `script-src` of the
 * documents of partly prerendered pages only (docs/rendering.md "Partial prerendering").
 */

/** An inline script element without attributes, as React writes its own (nothing of a page's can spell one). */
const bareInlineScript = /<script>([\s\S]*?)<\/script>/g

/** The CSP source of each distinct inline script without attributes in `html`: `'sha256-<base64>'`. */
export function inlineScriptHashes(html: string): string[] {
  const hashes = new Set<string>()
  for (const match of html.matchAll(bareInlineScript)) {
    hashes.add(`'sha256-${createHash('sha256').update(match[1]!, 'utf8').digest('base64')}'`)
  }
  return [...hashes]
}

/** A Content-Security-Policy value with `hashes` at the start of its `script-src`; as it was without one. */
export function withScriptHashes(policy: string, hashes: readonly string[]): string {
  if (hashes.length === 0) return policy
  return policy.replace(/(^|;\s*)script-src(?=\s|;|$)/, (directive) => `${directive} ${hashes.join(' ')}`)
}

/** Adds `hashes` to the reply's policy, where the request filter gave it one (a path it excludes has none). */
export function allowScriptHashes(reply: FastifyReply, hashes: readonly string[]): void {
  const policy = reply.getHeader('content-security-policy')
  if (typeof policy === 'string') reply.header('content-security-policy', withScriptHashes(policy, hashes))
}
