/**
 * Paths the site-wide request filter does not apply to. docs/request-filter.md "Exclusions" lists them and why; they
 * are matched as it says: by whole path segments on the decoded, normalised pathname (so /apix and /faq-admin stay
 * filtered).
 */
export const filterExclusions = Object.freeze({
  /** "paths starting with api", "paths starting with _next", "images": the first segment. */
  firstSegments: Object.freeze(['api', '_next', 'images']),
  /** "favicon.ico", "sitemap.xml", "robots.txt", "the faq path (with or without a trailing slash)". */
  exactPaths: Object.freeze(['/favicon.ico', '/sitemap.xml', '/robots.txt', '/faq', '/faq/']),
  /** "sitemap files": /sitemap-0.xml, /sitemap-1.xml, ... */
  sitemapFile: /^\/sitemap-\d+\.xml$/,
  /** "images": image files anywhere, by extension. */
  imageExtensions: Object.freeze(['.png', '.jpg', '.jpeg', '.gif', '.webp', '.avif', '.svg', '.ico']),
})

/** A redirect of the site policy: `from` and `to` are router patterns sharing their `:name` parameters. */
export interface SiteRedirect {
  from: string
  to: string
  /** 308 when permanent, 307 otherwise: both keep the method, as Next.js's redirects do. */
  permanent: boolean
}

/**
 * The Content-Security-Policy of filtered responses (ours), directive by directive; `script-src` gets the request's
 * nonce in front at register time. Every page must load in Chromium with zero violations (test/e2e/csp.test.ts).
 */
export const contentSecurityPolicy = Object.freeze({
  /** Scripts: only those carrying the nonce, and what they load ('strict-dynamic': Vite's chunks, React's). */
  scriptSrc: Object.freeze(["'strict-dynamic'"]),
  defaultSrc: Object.freeze(["'self'"]),
  /**
   * Stylesheets from the origin; the header adds the request's nonce (src/site-policy.ts) for the stylesheet inlined
   * into each document (src/render/template.ts) and the <style> Vite's dev server injects.
   */
  styleSrc: Object.freeze(["'self'"]),
  /** Style attributes cannot run script; React's `style` prop writes them. */
  styleSrcAttr: Object.freeze(["'unsafe-inline'"]),
  /** Images from the origin (public files, the optimizer), and data:/blob: placeholders. */
  imgSrc: Object.freeze(["'self'", 'data:', 'blob:']),
  /** Inter is self-hosted (docs/rendering.md "Assets"). */
  fontSrc: Object.freeze(["'self'"]),
  /** Page data and client error reports go to the origin only. */
  connectSrc: Object.freeze(["'self'"]),
  objectSrc: Object.freeze(["'none'"]),
  baseUri: Object.freeze(["'self'"]),
  formAction: Object.freeze(["'self'"]),
  frameAncestors: Object.freeze(["'none'"]),
})

/** Headers of every response, excluded paths too: they cost nothing and are never wrong (ours). */
export const alwaysHeaders = Object.freeze({
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
})

/** Headers of filtered responses besides the CSP: they only mean something on documents (ours). */
export const documentHeaders = Object.freeze({
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=(), browsing-topics=()',
  /** frame-ancestors 'none' for browsers that predate CSP level 2. */
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
})

/** Strict-Transport-Security when HSTS=true: one year, subdomains included (no preload: that is an operator's call). */
export const hstsHeaderValue = 'max-age=31536000; includeSubDomains'

/** The CSP nonce: 128 random bits, base64 (CSP level 3 asks for at least 128 bits). */
export const cspNonceBytes = 16
