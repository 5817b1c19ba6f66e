/// <reference types="vite/client" />

/**
 * The site's pages as the client knows them, written by the build from the page modules (src/build/page-manifest.ts):
 * the router's table (paths, kinds, freshness: no head, no server half) and each page's code chunk.
 */
declare module 'virtual:courier/page-routes' {
  import type { PageRoute } from '../src/common/page-types.ts'
  export const pages: readonly PageRoute[]
}

declare module 'virtual:courier/page-modules' {
  import type { PageModule } from '../src/common/page-types.ts'
  export const pageModules: Readonly<Record<string, () => Promise<PageModule>>>
}
