/**
 * Where the Markdown parser's thread starts from: the source file here; in the compiled server, the chunk the build
 * emits for it (src/build/server-build.ts names this module).
 */
export const markdownWorkerFile: URL = new URL('./markdown-worker.ts', import.meta.url)
