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

const parsedHeaders = new Map<string, Map<string, number>>()
/** Browsers send a handful of distinct headers: parse each once (bounded, so odd headers cannot grow it). */
const maxParsedHeaders = 64

function weightsOf(header: string): Map<string, number> {
  let weights = parsedHeaders.get(header)
  if (!weights) {
    weights = parse(header)
    if (parsedHeaders.size < maxParsedHeaders) parsedHeaders.set(header, weights)
  }
  return weights
}

/**
 * The coding to send a response in: the acceptable one with the highest q among `offered` (in the server's order of
 * preference for ties) and identity. No header: identity. When nothing offered is acceptable, identity: the response
 * goes without content coding, as RFC 9110 advises, even where identity was refused.
 */
export function negotiateCoding<C extends string = ContentCoding>(
  header: string | undefined,
  offered: readonly C[],
): C | 'identity' {
  if (header === undefined) return 'identity'
  const weights = weightsOf(header)
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
export function identityAcceptable(header: string | undefined): boolean {
  if (header === undefined) return true
  const weights = weightsOf(header)
  return (weights.get('identity') ?? weights.get('*') ?? 1) > 0
}
