/**
 * Where the content's threads start from: the source files here; in the compiled server, the chunks the build emits
 * for them (src/build/server-build.ts names this module).
 */
export const markdownWorkerFile: URL = new URL('./markdown-worker.ts', import.meta.url)
export const indexReadWorkerFile: URL = new URL('./index-read-worker.ts', import.meta.url)
