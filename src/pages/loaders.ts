/**
 * Server-only page loaders, keyed by page id (site/pages.ts). Nothing here may reach the browser: the client
 * bundle never imports this file, and test/build/client-bundle.test.ts checks that its content is absent from the built client.
 */
import { guides } from '../content/guides.ts'
import { faq } from '../content/faq.ts'
import { siteImages } from '../content/images.ts'
import { readProcessMemory } from './process-memory.ts'
import type { LoaderTable } from '../../site/page-types.ts'
import type { GuideSummary, PageImage, SitePageData } from '../../site/data-types.ts'

function summarize(guide: GuideSummary): GuideSummary {
  return { slug: guide.slug, title: guide.title, summary: guide.summary }
}

const guideSummaries = guides.map(summarize)

const galleryImages: PageImage[] = siteImages.map(({ src, width, height, alt }) => ({ src, width, height, alt }))

export const pageLoaders = {
  home: {
    load: () => ({ props: { guides: guideSummaries, hero: galleryImages[0]! } }),
  },
  guides: {
    load: () => ({
      props: {
        guides: guides.map((guide) => ({ ...summarize(guide), sections: guide.sections.map((section) => section.heading) })),
      },
    }),
  },
  guide: {
    load: ({ params }) => {
      const index = guides.findIndex((guide) => guide.slug === params.slug)
      if (index === -1) return { notFound: true }
      const previous = guideSummaries[index - 1] ?? null
      const next = guideSummaries[index + 1] ?? null
      return { props: { guide: guides[index]!, previous, next } }
    },
    staticParams: () => guides.map((guide) => ({ slug: guide.slug })),
  },
  status: {
    load: ({ deploymentId }) => {
      return {
        props: {
          deploymentId,
          serverTime: new Date().toISOString(),
          uptimeS: process.uptime(),
          nodeVersion: process.version,
          memory: readProcessMemory(),
        },
      }
    },
  },
  gallery: {
    load: () => ({ props: { images: galleryImages } }),
  },
  faq: {
    load: () => ({ props: { entries: [...faq] } }),
  },
} satisfies LoaderTable<SitePageData>
