import type { SitePageData } from './data-types.ts'
import type { PageDefinition, PageTable } from '../src/common/page-types.ts'

/**
 * The page table: one entry per page of `SitePageData` (site/data-types.ts), the one source of truth for the server
 * (routes, page data, sitemap, request filter, preloads) and the client (router). Plain data and head functions only:
 * each page's component is found by its id (client/page-modules.ts), each page's server-only loader likewise
 * (src/pages/loaders.ts); the compiler checks all three against the map (src/common/page-types.ts).
 */
export type { PageDefinition, PageHead, PageKind, RouteParams } from '../src/common/page-types.ts'

export const siteName = 'Courier'

/** The freshness of the pages that show content (docs/content.md), in seconds. */
const contentRevalidateS = 60

export function titled(title: string): string {
  return `${title} · ${siteName}`
}

/** In matching order: the first page whose path matches a URL is its page. */
export const pageTable = {
  home: {
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
  guides: {
    path: '/guides',
    kind: 'static',
    // Content from CONTENT_DIR: fresh within a minute of an edit even without an on-demand revalidation.
    revalidate: contentRevalidateS,
    head: () => ({ title: titled('Guides'), description: 'One guide per delivery mechanic of Courier.' }),
  },
  // The list's other pages: two segments, so a guide's slug (one) never matches here, nor this a guide.
  'guides-page': {
    path: '/guides/page/:page',
    kind: 'static',
    // Content from CONTENT_DIR: fresh within a minute of an edit even without an on-demand revalidation.
    revalidate: contentRevalidateS,
    head: (data) => ({ title: titled(`Guides, page ${data.page} of ${data.pages}`), description: 'More guides.' }),
  },
  guide: {
    path: '/guides/:slug',
    kind: 'static',
    // Content from CONTENT_DIR: fresh within a minute of an edit even without an on-demand revalidation.
    revalidate: contentRevalidateS,
    head: (data) => ({ title: titled(data.guide.title), description: data.guide.summary }),
  },
  status: {
    path: '/status',
    kind: 'dynamic',
    // A kept shell (headings, explanations, the deployment's facts) with the live figures as holes.
    prerender: 'partial',
    head: () => ({ title: titled('Status'), description: 'Live state of this Courier server.' }),
  },
  faq: {
    path: '/faq',
    kind: 'static',
    // Content from CONTENT_DIR: fresh within a minute of an edit even without an on-demand revalidation.
    revalidate: contentRevalidateS,
    head: () => ({ title: titled('FAQ'), description: 'Questions operators and developers ask about Courier.' }),
  },
  gallery: {
    path: '/gallery',
    kind: 'static',
    head: () => ({ title: titled('Gallery'), description: 'Photographs served through the image optimizer.' }),
  },
} satisfies PageTable<SitePageData>

/** The pages of a checked page table, in its order, each with its id. */
export function listPages<DataTypes>(table: PageTable<DataTypes>): PageDefinition[] {
  const pages: PageDefinition[] = []
  for (const id in table) pages.push({ id, ...table[id] })
  return pages
}

export const pages: readonly PageDefinition[] = listPages(pageTable)
