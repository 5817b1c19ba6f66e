/**
 * Server-only page loaders, keyed by page id (site/pages.ts). Nothing here may reach the browser: the client
 * bundle never imports this file, and test/build/client-bundle.test.ts checks that its content is absent from the
 * built client.
 * The guides and the FAQ are read from CONTENT_DIR when a loader runs (`content`, docs/content.md).
 */
import { contentTags } from '../content/content-source.ts'
import { siteImages } from '../content/images.ts'
import { readProcessMemory } from './process-memory.ts'
import type { LoaderTable } from '../common/page-types.ts'
import type { PageImage, SitePageData } from '../../site/data-types.ts'

/** A listing page's number from its URL segment: 2 and up, in digits (`/guides` is page 1). */
function listingPageNumber(segment: string | undefined): number | undefined {
  return segment !== undefined && /^[1-9]\d{0,6}$/.test(segment) && segment !== '1' ? Number(segment) : undefined
}

const galleryImages: PageImage[] = [...siteImages]

export const pageLoaders = {
  home: {
    // The list's first page, from the index of the guides: no file is read, and its size does not grow with their number.
    load: async ({ content }) => {
      const guides = await content.guideListPage(1)
      return { props: { guides: guides!, hero: galleryImages[0]! }, tags: [contentTags.guides] }
    },
    lastModified: (_params, { content }) => content.guideLastModified(),
  },
  guides: {
    load: async ({ content }) => ({ props: (await content.guideListPage(1))!, tags: [contentTags.guides] }),
    lastModified: (_params, { content }) => content.guideLastModified(),
  },
  'guides-page': {
    // `/guides/page/<n>`: two segments, so no guide's slug (one segment, `/guides/<slug>`) is ever taken for it.
    load: async ({ params, content }) => {
      const page = listingPageNumber(params.page)
      const list = page === undefined ? undefined : await content.guideListPage(page)
      return list ? { props: list, tags: [contentTags.guides] } : { notFound: true }
    },
    staticParams: async ({ content }) => {
      const { pages } = (await content.guideListPage(1))!
      return Array.from({ length: pages - 1 }, (_unused, index) => ({ page: String(index + 2) }))
    },
    lastModified: (_params, { content }) => content.guideLastModified(),
  },
  guide: {
    load: async ({ params, content }) => {
      // This guide's own file (a made-up URL costs one read), then its neighbours for the pager from the index: no other
      // guide's file is read.
      const guide = await content.guide(params.slug!)
      if (!guide) return { notFound: true }
      const { slug, title, summary, sections } = guide
      return {
        props: { guide: { slug, title, summary, sections }, ...(await content.guideNeighbours(slug)) },
        // Its neighbours' titles are in its pager: a change to any guide may change it.
        tags: [contentTags.guides, contentTags.guide(slug)],
      }
    },
    staticParams: async ({ content }) => (await content.guideSummaries()).map((guide) => ({ slug: guide.slug })),
    lastModified: (params, { content }) => content.guideLastModified(params.slug),
  },
  status: {
    // Kept with the prerendered shell: the same for the whole deployment.
    keep: ({ deploymentId }) => ({ props: { deploymentId, nodeVersion: process.version } }),
    // Per request, into the shell's holes.
    load: () => ({
      props: { serverTime: new Date().toISOString(), uptimeS: process.uptime(), memory: readProcessMemory() },
    }),
  },
  gallery: {
    load: () => ({ props: { images: galleryImages } }),
  },
  faq: {
    load: async ({ content }) => ({ props: await content.faq(), tags: [contentTags.faq] }),
  },
} satisfies LoaderTable<SitePageData>
