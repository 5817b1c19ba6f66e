/**
 * Paths the site-wide request filter does not apply to. Source: product spec section 2, matched as DESIGN.md
 * section 3 says: by whole path segments on the decoded, normalised pathname (so /apix and /faq-admin stay filtered).
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
