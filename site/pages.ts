
/**
 * The page table: one entry per page, the one source of truth for the server (routes, page data, sitemap, request
 * filter, preloads) and the client (router). Plain data and head functions only: each page's component is found by
 * its id (client/page-modules.ts), each page's server-only loader likewise (src/pages/loaders.ts).
 */
export type PageKind = 'static' | 'dynamic'

export type RouteParams = Readonly<Record<string, string>>

export interface PageHead {
  title: string
  description?: string
}

export interface PageDefinition {
  /** Stable id: joins the server's loader and the client's code chunk (`client/pages/<id>.tsx`), travels in the
   * hydration state. */
  id: string
  /** Fastify/find-my-way pattern, e.g. `/guides/:slug`. */
  path: string
  kind: PageKind
  /**
   * A `static` page's freshness, in seconds (docs/content.md): the kept version is served for this long; the first
   * request after it gets the kept version at once (marked stale) and starts one regeneration. Unset: kept until the
   * deployment ends or it is revalidated on demand (`POST /api/revalidate`).
   */
  revalidate?: number
  /** Title and meta of the page, from its data. */
  head: (data: never, params: RouteParams) => PageHead
}

export const siteName = 'Courier'

/** The freshness of the pages that show content (docs/content.md), in seconds. */
const contentRevalidateS = 60

export function titled(title: string): string {
  return `${title} · ${siteName}`
}

export const pages: readonly PageDefinition[] = [
  {
    id: 'home',
    path: '/',
    kind: 'static',
    // Content from CONTENT_DIR: fresh within a minute of an edit even without an on-demand revalidation.
    revalidate: contentRevalidateS,
    // The hero is an Image with priority: React preloads it with the shell, with the same srcset and sizes.
    head: () => ({
      title: `${siteName}: React delivery on Fastify`,
      description: 'Courier serves a React site with streaming server rendering, page data and a prefetching router.',
    }),
  },
  {
    id: 'guides',
    path: '/guides',
    kind: 'static',
    // Content from CONTENT_DIR: fresh within a minute of an edit even without an on-demand revalidation.
    revalidate: contentRevalidateS,
    head: () => ({ title: titled('Guides'), description: 'One guide per delivery mechanic of Courier.' }),
  },
  {
    id: 'guide',
    path: '/guides/:slug',
    kind: 'static',
    // Content from CONTENT_DIR: fresh within a minute of an edit even without an on-demand revalidation.
    revalidate: contentRevalidateS,
    head: (data: { guide: { title: string; summary: string } }) => ({
      title: titled(data.guide.title),
      description: data.guide.summary,
    }),
  },
  {
    id: 'status',
    path: '/status',
    kind: 'dynamic',
    head: () => ({ title: titled('Status'), description: 'Live state of this Courier server.' }),
  },
  {
    id: 'faq',
    path: '/faq',
    kind: 'static',
    // Content from CONTENT_DIR: fresh within a minute of an edit even without an on-demand revalidation.
    revalidate: contentRevalidateS,
    head: () => ({ title: titled('FAQ'), description: 'Questions operators and developers ask about Courier.' }),
  },
  {
    id: 'gallery',
    path: '/gallery',
    kind: 'static',
    head: () => ({ title: titled('Gallery'), description: 'Photographs served through the image optimizer.' }),
  },
]
