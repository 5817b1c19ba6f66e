/**
 * The client bundle's size budget. The goal is a first load of `/` of at most 70 kB gzip (Next.js: about 115 kB);
 * React 19 and react-dom alone take about 67.5 kB of it (docs/client-bundle.md). The budget is the build's real
 * number with a little room, so that growth of the first load fails the build test (test/build/first-load-js.test.ts)
 * instead of going unnoticed.
 */
export const clientBundle = Object.freeze({
  /** Gzip bytes (zlib's default level) of the scripts `/` loads before it is interactive. */
  firstLoadJsBudgetBytes: 73_000,
  /**
   * A built stylesheet up to this size goes into each document instead of being linked (ours): one request less
   * before the first paint, for about 1.2 kB of brotli per document today (3.5 kB of CSS). A bigger one keeps its
   * link, where a cached copy serves every later page.
   */
  inlineStylesheetMaxBytes: 16_384,
  /**
   * The entry script starts after the document's first paint (src/render/entry-loader.ts); if the browser has not
   * reported that paint by then, it starts anyway. Far above a first paint on a slow phone's link (about 0.7 s in
   * Lighthouse's mobile model), so it only bounds the wait when something went wrong.
   */
  entryStartFallbackMs: 3_000,
})

/** Built assets have content-hashed names: cache them for a year, never revalidate (docs/rendering.md "Assets"). */
export const immutableAssetCacheControl = 'public, max-age=31536000, immutable'
