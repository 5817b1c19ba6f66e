/**
 * Compression dictionaries (RFC 9842): a returning browser that kept an older deployment's chunk gets the new chunk
 * as a delta against it (docs/compression.md "Dictionaries").
 */
export const dictionaries = Object.freeze({
  /**
   * The chunks offered as dictionaries and delta-coded: JavaScript and stylesheets, what changes from deployment to
   * deployment under a new hash. Fonts and images are compressed formats a delta does not shrink.
   */
  extensions: ['.js', '.css'] as readonly string[],
  /**
   * The request destination each is fetched for (`match-dest`): a `<script type=module>`, a modulepreload and an
   * `import()` are `script`; a `<link rel=stylesheet>` is `style`. A browser offers the dictionary for nothing else.
   */
  destinations: { '.js': 'script', '.css': 'style' } as Readonly<Record<string, string>>,
  /**
   * A delta is made only where both files are at most this large. The largest chunk the site builds is about 230 kB;
   * 4 MiB keeps a deploy's deltas within seconds each, keeps every zstd frame's window (the new file's size, a
   * single-segment frame) below the 8 MiB every zstd decoder of a browser accepts (RFC 9659), far below the 128 MiB
   * RFC 9842 allows a `dcz` decoder to refuse beyond; a brotli delta keeps brotli's default 4 MiB window, within the
   * 16 MiB RFC 9842 allows a `dcb` decoder to refuse beyond.
   */
  maxDeltaBytes: 4 * 1024 * 1024,
  /** zstd 19 and brotli 11, as for the build's own `.zst` and `.br` (config/compression.ts): a delta is made once. */
  zstdLevel: 19,
  brotliQuality: 11,
})
