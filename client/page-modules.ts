import type { ComponentType } from 'react'
import type { RouteParams } from '../site/pages.ts'
import { extraPageModules } from 'virtual:courier/extra-pages'

/** What every page component receives: its page data and its route parameters. */
export interface PageComponentProps<Data = unknown> {
  data: Data
  params: RouteParams
}

/** A page's component with its data type erased: the page table joins components and data by page id. */
export type PageComponent = ComponentType<PageComponentProps<never>>

export interface PageModule {
  default: PageComponent
}

/**
 * Each page's code chunk by page id (the module is `client/pages/<id>.tsx`; the chunk carries its name, and the
 * server finds a page's chunks to preload by it). The client entry loads the first page's chunk from here, the router
 * every later one. A test build adds its own pages here (vite.config.ts); a production build adds none.
 */
const pageModules: Readonly<Record<string, () => Promise<PageModule>>> = {
  home: () => import('./pages/home.tsx'),
  guides: () => import('./pages/guides.tsx'),
  guide: () => import('./pages/guide.tsx'),
  status: () => import('./pages/status.tsx'),
  faq: () => import('./pages/faq.tsx'),
  gallery: () => import('./pages/gallery.tsx'),
  ...extraPageModules,
}

/** The loader of page `id`'s chunk, if the site has that page. */
export function pageModule(id: string): (() => Promise<PageModule>) | undefined {
  return Object.prototype.hasOwnProperty.call(pageModules, id) ? pageModules[id] : undefined
}
