/// <reference types="vite/client" />

/**
 * Pages a build adds beside the site's own (vite.config.ts): the test build's (test/site/), none in production.
 */
declare module 'virtual:courier/extra-pages' {
  import type { PageDefinition, PageModule } from '../src/common/page-types.ts'
  export const extraPages: readonly PageDefinition[]
  export const extraPageModules: Readonly<Record<string, () => Promise<PageModule>>>
}
