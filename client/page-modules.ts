import type { PageModule } from './routes.ts'

/**
 * Each page's code chunk by page id (the module is `client/pages/<id>.tsx`; the chunk carries its name). The page
 * table takes its loaders from here; the client entry loads the first page's chunk from here too, without the page
 * table, which arrives with the client router after hydration.
 */
export const pageModules = {
  home: () => import('./pages/home.tsx'),
  guides: () => import('./pages/guides.tsx'),
  guide: () => import('./pages/guide.tsx'),
  status: () => import('./pages/status.tsx'),
  faq: () => import('./pages/faq.tsx'),
  gallery: () => import('./pages/gallery.tsx'),
  'test-slow': () => import('./pages/test-slow.tsx'),
  'test-server-error': () => import('./pages/test-server-error.tsx'),
  'test-shell-error': () => import('./pages/test-shell-error.tsx'),
  'test-late-error': () => import('./pages/test-late-error.tsx'),
  'test-client-error': () => import('./pages/test-client-error.tsx'),
  'test-links': () => import('./pages/test-links.tsx'),
} satisfies Record<string, () => Promise<PageModule>>

export type PageModuleId = keyof typeof pageModules

/** The loader of page `id`'s chunk, if the site has that page. */
export function pageModule(id: string): (() => Promise<PageModule>) | undefined {
  return Object.prototype.hasOwnProperty.call(pageModules, id) ? pageModules[id as PageModuleId] : undefined
}
