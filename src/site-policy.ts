/**
 * The site policy: what the request filter (plugins/request-filter.ts) applies to every path it does not exclude,
 * as an ordered list of steps. A step looks at the request and continues (optionally adding headers), redirects or
 * answers. Courier's built-in steps come first: the CSP nonce, the security headers, the site's redirects; a site's
 * own steps (an auth gate, say) follow. Every header string is built here once; per request only the nonce is new.
 */
import { randomFillSync } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { contentSecurityPolicy, cspNonceBytes, documentHeaders, type SiteRedirect } from '../config/request-filter.ts'
import { compilePattern } from './common/match.ts'

/** What a step is asked about: the page path judged, and whether the request is for that page's data. */
export interface PolicyTarget {
  /** The decoded page path, e.g. `/guides/streaming-ssr` (for a data URL: its page's path). */
  pathname: string
  /** True for `/_next/data/<id>/<page>.json`: a redirect is then answered as data (`{ redirect }`). */
  pageData: boolean
}

export type PolicyHeaders = Readonly<Record<string, string>>

export type StepOutcome =
  | { readonly action: 'continue'; readonly headers?: PolicyHeaders }
  /** `location`: a page path (`/guides/x`) or an absolute URL; a data request gets it as data, `{ redirect }`. */
  | { readonly action: 'redirect'; readonly location: string; readonly permanent: boolean }
  /** Without `body`: the error page (or JSON error, for data and API) of `statusCode`, through the error handler. */
  | {
      readonly action: 'respond'
      readonly statusCode: number
      readonly headers?: PolicyHeaders
      readonly body?: string | Readonly<Record<string, unknown>>
    }

export type PolicyStep = (request: FastifyRequest, target: PolicyTarget) => StepOutcome | Promise<StepOutcome>

/** A step that never waits: the built-in ones, which also protect the error page of a refused path. */
export type SyncPolicyStep = (request: FastifyRequest, target: PolicyTarget) => StepOutcome

/** The outcome of a step with nothing to add; shared, never allocated per request. */
export const proceed: StepOutcome = Object.freeze({ action: 'continue' })

/** `default-src`, `script-src`, ...: the header's directive names from the config's camelCase keys. */
function directiveName(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)
}

/**
 * The Content-Security-Policy value split around the nonce: the header is `parts` joined with the request's nonce.
 * script-src goes first, with the nonce; style-src ends with it too, for the document's inline stylesheet
 * (src/render/template.ts), unless `styleNonce` is false.
 */
export function cspTemplate(
  policy: typeof contentSecurityPolicy = contentSecurityPolicy,
  { styleNonce = true }: { styleNonce?: boolean } = {},
): { parts: readonly string[] } {
  const nonceAt = '\u0000'
  const { scriptSrc, ...others } = policy
  const rest = Object.entries(others).map(([key, sources]) => {
    const withNonce = key === 'styleSrc' && styleNonce ? [...sources, `'nonce-${nonceAt}'`] : sources
    return `${directiveName(key)} ${withNonce.join(' ')}`
  })
  const value = `script-src 'nonce-${nonceAt}' ${scriptSrc.join(' ')}; ${rest.join('; ')}`
  return { parts: Object.freeze(value.split(nonceAt)) }
}

/** Nonces drawn from the CSPRNG per refill: one call for 256 requests instead of one each (a measurable share). */
const noncesPerRefill = 256

/** Step 1: a fresh nonce (128 bits, base64) for the renderer, and the CSP that trusts it. */
export function createNonceStep(): SyncPolicyStep {
  const { parts } = cspTemplate()
  // Each nonce is its own 16 bytes of the pool, used once; the pool is refilled from the CSPRNG when spent.
  const pool = Buffer.alloc(cspNonceBytes * noncesPerRefill)
  let offset = pool.length
  return function addCspNonce(request) {
    if (offset === pool.length) {
      randomFillSync(pool)
      offset = 0
    }
    const nonce = pool.toString('base64', offset, offset + cspNonceBytes)
    offset += cspNonceBytes
    request.cspNonce = nonce
    return { action: 'continue', headers: { 'content-security-policy': parts.join(nonce) } }
  }
}

/** Step 2: the security headers of documents, one frozen object for every request. */
export function createSecurityHeadersStep(): SyncPolicyStep {
  const outcome: StepOutcome = Object.freeze({ action: 'continue', headers: documentHeaders })
  return function addSecurityHeaders() {
    return outcome
  }
}

/** A redirect's `to`, with the parameters of `from` filled in, re-encoded (the path judged is decoded). */
function encodeParam(value: string): string {
  // encodeURI escapes what decoding produced; the escapes the router leaves encoded (`%3B`, ...) stay as they came.
  return encodeURI(value).replace(/%25([0-9A-Fa-f]{2})/g, '%$1')
}

function queryOf(url: string): string {
  const at = url.indexOf('?')
  return at === -1 ? '' : url.slice(at)
}

/** Step 3: the site's redirects, compiled once; the first whose `from` matches the page path wins. */
export function createRedirectStep(redirects: readonly SiteRedirect[]): SyncPolicyStep {
  const compiled = redirects.map((redirect) => ({ ...redirect, matchFrom: compilePattern(redirect.from) }))
  return function redirectByConfig(request, target) {
    for (const redirect of compiled) {
      const params = redirect.matchFrom(target.pathname)
      if (!params) continue
      let location = redirect.to
      for (const [name, value] of Object.entries(params)) {
        const encoded = encodeParam(value)
        location = location.replace(`:${name}`, () => encoded)
      }
      return { action: 'redirect', location: location + queryOf(request.url), permanent: redirect.permanent }
    }
    return proceed
  }
}
