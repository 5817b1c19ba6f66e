import type { SitePageData } from '../site/data-types.ts'
import type { ComponentTable, PageModule } from '../src/common/page-types.ts'
import { extraPageModules } from 'virtual:courier/extra-pages'

export type { PageComponent, PageComponentProps, PageModule } from '../src/common/page-types.ts'

/**
 * Each page's code chunk by page id (the module is `client/pages/<id>.tsx`; the chunk carries its name, and the
 * server finds a page's chunks to preload by it), checked against the site's map of page data (src/common/page-types.ts).
 * The client entry loads the first page's chunk from here, the router every later one.
 */
const sitePageModules = {
  home: () => import('../site/pages/home.tsx'),
  guides: () => import('../site/pages/guides.tsx'),
  'guides-page': () => import('../site/pages/guides-page.tsx'),
  guide: () => import('../site/pages/guide.tsx'),
  status: () => import('../site/pages/status.tsx'),
  faq: () => import('../site/pages/faq.tsx'),
  gallery: () => import('../site/pages/gallery.tsx'),
} satisfies ComponentTable<SitePageData>

/** The site's chunks and those a build adds: a test build its own pages' (vite.config.ts), a production build none. */
const pageModules: Readonly<Record<string, () => Promise<PageModule>>> = { ...sitePageModules, ...extraPageModules }

/** The loader of page `id`'s chunk, if the site has that page. */
export function pageModule(id: string): (() => Promise<PageModule>) | undefined {
  return Object.prototype.hasOwnProperty.call(pageModules, id) ? pageModules[id] : undefined
}
