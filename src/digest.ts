import { createHash, randomBytes } from 'node:crypto'

/**
 * Digests name server-side exceptions: a short hash shown to the user and written in the log line, so an operator
 * can find the one from the other while the message and stack stay on the server. Unique per occurrence, fixed once
 * given: the same error object always reports the same digest, and is logged once.
 */
const kDigest = Symbol.for('courier.digest')

interface WithDigest {
  [kDigest]?: string
}

export function digestOf(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as WithDigest)[kDigest] : undefined
}

/** Gives the error its digest; `isNew` is false when it already had one (and so has been logged). */
export function assignDigest(error: unknown, requestId: string): { digest: string; isNew: boolean } {
  const existing = digestOf(error)
  if (existing) return { digest: existing, isNew: false }
  const text = error instanceof Error ? `${error.name}:${error.message}:${error.stack ?? ''}` : String(error)
  const digest = createHash('sha256').update(requestId).update(text).update(randomBytes(8)).digest('hex').slice(0, 10)
  if (typeof error === 'object' && error !== null && Object.isExtensible(error)) {
    Object.defineProperty(error, kDigest, { value: digest, enumerable: false })
  }
  return { digest, isNew: true }
}
