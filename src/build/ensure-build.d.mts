export declare function buildState(
  root: string,
  distDir: string,
): { state: 'missing' | 'stale' | 'fresh'; reason: string }
