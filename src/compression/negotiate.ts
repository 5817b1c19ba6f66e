import { caches, type CacheBounds } from '../../config/caches.ts'
import { BoundedCache } from '../bounded-cache.ts'
import type { DictionaryCoding } from './dictionaries.ts'

/**
 * Content negotiation of `Accept-Encoding` (RFC 9110 section 12.5.3): q-values honoured, `*` stands for any coding not
 * named, `identity` acceptable unless refused (`identity;q=0`, or `*;q=0` without an entry for it).
 */
export type ContentCoding = 'br' | 'gzip' | 'zstd'
export type Coding = ContentCoding | 'identity'

/** q of each coding the header names (lower-cased), and of `*`. */
function parse(header: string): Map<string, number> {
  const weights = new Map<string, number>()
  for (const entry of header.split(',')) {
    const [name = '', ...parameters] = entry.split(';')
    const coding = name.trim().toLowerCase()
    if (!coding) continue
    let q = 1
    for (const parameter of parameters) {
      const [key, value] = parameter.split('=')
      if (key?.trim().toLowerCase() !== 'q') continue
      const parsed = Number(value?.trim())
      q = Number.isFinite(parsed) && parsed >= 0 && parsed <= 1 ? parsed : 0
    }
    // A coding named twice keeps its highest weight.
    weights.set(coding, Math.max(q, weights.get(coding) ?? 0))
  }
  return weights
}

/**
 * Parsed headers by their text: browsers send a handful of distinct ones, so each is parsed once (config/caches.ts).
 */
export type ParsedAcceptEncoding = BoundedCache<string, Map<string, number>>

/** The cache of parsed headers the sender keeps (src/delivery/send.ts); `buildApp` makes one per instance. */
export function parsedAcceptEncoding(bounds: CacheBounds = caches.acceptEncoding): ParsedAcceptEncoding {
  // The header's text twice (key and parse) and about 48 bytes per coding named.
  return new BoundedCache(bounds, (weights, header) => header.length * 2 + weights.size * 48)
}

function weightsOf(header: string, parsed: ParsedAcceptEncoding | undefined): Map<string, number> {
  let weights = parsed?.get(header)
  if (!weights) {
    weights = parse(header)
    parsed?.set(header, weights)
  }
  return weights
}

/**
 * The coding to send a response in: the acceptable one with the highest q among `offered` (in the server's order of
 * preference for ties) and identity. No header: identity. When nothing offered is acceptable, identity: the response
 * goes without content coding, as RFC 9110 advises, even where identity was refused. `parsed`: where parsed headers
 * are kept (src/delivery/send.ts keeps them); without it, the header is parsed on each call.
 */
export function negotiateCoding<C extends string = ContentCoding>(
  header: string | undefined,
  offered: readonly C[],
  parsed?: ParsedAcceptEncoding,
): C | 'identity' {
  if (header === undefined) return 'identity'
  const weights = weightsOf(header, parsed)
  const any = weights.get('*')
  const weight = (coding: string) => weights.get(coding) ?? any ?? 0
  let best: C | 'identity' = 'identity'
  let bestQ = 0
  for (const coding of offered) {
    const q = weight(coding)
    if (q > bestQ) {
      best = coding
      bestQ = q
    }
  }
  // identity wins only when the client weighs it above every coding offered (ties go to compressing); a client that
  // does not name it accepts it, as the last choice.
  const identityQ = weights.get('identity') ?? any ?? 0
  return bestQ > 0 && bestQ >= identityQ ? best : 'identity'
}

/** Whether the response may go without content coding: identity not refused (`identity;q=0`, or `*;q=0` alone). */
export function identityAcceptable(header: string | undefined, parsed?: ParsedAcceptEncoding): boolean {
  if (header === undefined) return true
  const weights = weightsOf(header, parsed)
  return (weights.get('identity') ?? weights.get('*') ?? 1) > 0
}

/** An Accept-Encoding entry that names the coding itself (any case, with or without parameters). */
const namedIn: Readonly<Record<DictionaryCoding, RegExp>> = {
  dcb: /(?:^|,)[ \t]*dcb[ \t]*(?:;|,|$)/i,
  dcz: /(?:^|,)[ \t]*dcz[ \t]*(?:;|,|$)/i,
}

/**
 * The dictionary coding (RFC 9842, src/compression/dictionaries.ts) to answer in, of those the build has a delta in
 * (`offered`, smallest first), or undefined: one the header names itself (not only through `*`: no client takes a
 * delta it did not ask for) and weighs at least as much as any other coding of built assets (`fallbacks`); on a tie,
 * the smaller delta.
 */
export function dictionaryCoding(
  header: string | undefined,
  offered: readonly DictionaryCoding[],
  fallbacks: readonly string[],
  parsed?: ParsedAcceptEncoding,
): DictionaryCoding | undefined {
  if (header === undefined) return undefined
  const named = offered.filter((coding) => namedIn[coding].test(header))
  if (named.length === 0) return undefined
  const chosen = negotiateCoding<string>(header, [...named, ...fallbacks], parsed)
  return named.find((coding) => coding === chosen)
}
