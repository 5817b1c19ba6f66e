/**
 * Client error reports (POST /api/client-errors): every bound in one place. Ours; each keeps a report small and a
 * flood cheap. The browser side reads the per-page numbers too.
 */
export const clientErrorLimits = Object.freeze({
  /** A report is one small JSON object: larger bodies get 413 before they are parsed. */
  bodyLimitBytes: 16 * 1024,
  /** Reports one client (by IP, proxy-aware when TRUST_PROXY is on) may send per window; more get 429. */
  maxPerWindow: 20,
  windowMs: 60_000,
  /** Field lengths: a message line, a stack of a few dozen frames, a URL, a digest (src/digest.ts makes 10 hex). */
  messageMaxLength: 1_000,
  stackMaxLength: 8_000,
  urlMaxLength: 2_048,
  digestMaxLength: 64,
  /** The user agent as logged. */
  userAgentMaxLength: 512,
  /** A page sends at most this many reports, each distinct error once: a render loop cannot flood the server. */
  maxPerPage: 10,
})

/** Where the browser sends its reports. */
export const clientErrorsPath = '/api/client-errors'

/** What reported a client error. */
export const clientErrorSources = ['boundary', 'onerror', 'unhandledrejection', 'hydration'] as const
export type ClientErrorSource = (typeof clientErrorSources)[number]

export interface ClientErrorReport {
  source: ClientErrorSource
  message: string
  stack?: string
  url: string
  digest?: string
  /** The `traceparent` of the page's own request (its `<meta name="traceparent">`, only with tracing on). */
  traceparent?: string
}

/** A `traceparent` as W3C Trace Context version 00 writes it: 55 characters, lowercase hex ids and flags. */
export const traceparentPattern = '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$'
