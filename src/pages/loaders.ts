/**
 * Server-only page loaders, keyed by page id (site/pages.ts). Nothing here may reach the browser: the client
 * bundle never imports this file, and test/build/client-bundle.test.ts checks that its content is absent from the
 * built client.
 * The guides and the FAQ are read from CONTENT_DIR when a loader runs (`content`, docs/content.md).
 */
import { contentTags } from '../content/content-source.ts'
import { siteImages } from '../content/images.ts'
import { readProcessMemory } from './process-memory.ts'
import type { LoaderTable } from '../../site/page-types.ts'
import type { GuideSummary, PageImage, SitePageData } from '../../site/data-types.ts'

function summaryOf(guide: GuideSummary | undefined): GuideSummary | null {
  return guide ? { slug: guide.slug, title: guide.title, summary: guide.summary } : null
}

const galleryImages: PageImage[] = [...siteImages]

export const pageLoaders = {
  home: {
    load: async ({ content }) => ({
      props: { guides: [...(await content.guideSummaries())], hero: galleryImages[0]! },
      tags: [contentTags.guides],
    }),
  },
  guides: {
    load: async ({ content }) => ({
      props: {
        guides: (await content.guides()).map(({ slug, title, summary, sections }) => ({
          slug,
          title,
          summary,
          sections: sections.map((section) => section.heading),
        })),
      },
      tags: [contentTags.guides],
    }),
  },
  guide: {
    load: async ({ params, content }) => {
      // This guide first (one listing of the folder tells a missing one: a made-up URL costs no other read), then the
      // list for the pager (front matter only).
      const guide = await content.guide(params.slug!)
      if (!guide) return { notFound: true }
      const guides = await content.guideSummaries()
      const index = guides.findIndex((summary) => summary.slug === params.slug)
      const { slug, title, summary, sections } = guide
      return {
        props: {
          guide: { slug, title, summary, sections },
          previous: summaryOf(guides[index - 1]),
          next: summaryOf(guides[index + 1]),
        },
        // Its neighbours' titles are in its pager: a change to any guide may change it.
        tags: [contentTags.guides, contentTags.guide(slug)],
      }
    },
    staticParams: async ({ content }) => (await content.guideSummaries()).map((guide) => ({ slug: guide.slug })),
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
