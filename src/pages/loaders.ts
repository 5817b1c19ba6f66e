/**
 * Server-only page loaders, keyed by page id (site/pages.ts). Nothing here may reach the browser: the client
 * bundle never imports this file, and test/build/client-bundle.test.ts checks that its content is absent from the built client.
 */
import { guides } from '../content/guides.ts'
import { faq } from '../content/faq.ts'
import { siteImages } from '../content/images.ts'
import { readProcessMemory } from './process-memory.ts'
import type { RouteParams } from '../../site/pages.ts'
import type {
  FaqData,
  GalleryData,
  GuideData,
  GuidesData,
  GuideSummary,
  HomeData,
  PageImage,
  StatusData,
} from '../../site/data-types.ts'

export type LoaderResult<Data> =
  | { props: Data }
  | { notFound: true }
  | { redirect: { destination: string; permanent: boolean } }

export interface LoaderContext {
  params: RouteParams
  query: Readonly<Record<string, unknown>>
  deploymentId: string
}

export type Loader<Data = unknown> = (context: LoaderContext) => LoaderResult<Data> | Promise<LoaderResult<Data>>

export interface PageServerSide<Data = unknown> {
  load?: Loader<Data>
  /** Parameters of every instance of a parametrised page: feeds the sitemap. */
  staticParams?: () => RouteParams[]
}

function summarize(guide: GuideSummary): GuideSummary {
  return { slug: guide.slug, title: guide.title, summary: guide.summary }
}

const guideSummaries = guides.map(summarize)

const galleryImages: PageImage[] = siteImages.map(({ src, width, height, alt }) => ({ src, width, height, alt }))

export const pageLoaders: Readonly<Record<string, PageServerSide<unknown>>> = {
  home: {
    load: (): LoaderResult<HomeData> => ({ props: { guides: guideSummaries, hero: galleryImages[0]! } }),
  },
  guides: {
    load: (): LoaderResult<GuidesData> => ({
      props: {
        guides: guides.map((guide) => ({ ...summarize(guide), sections: guide.sections.map((section) => section.heading) })),
      },
    }),
  },
  guide: {
    load: ({ params }): LoaderResult<GuideData> => {
      const index = guides.findIndex((guide) => guide.slug === params.slug)
      if (index === -1) return { notFound: true }
      const previous = guideSummaries[index - 1] ?? null
      const next = guideSummaries[index + 1] ?? null
      return { props: { guide: guides[index]!, previous, next } }
    },
    staticParams: () => guides.map((guide) => ({ slug: guide.slug })),
  },
  status: {
    load: ({ deploymentId }): LoaderResult<StatusData> => {
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
    load: (): LoaderResult<GalleryData> => ({ props: { images: galleryImages } }),
  },
  faq: {
    load: (): LoaderResult<FaqData> => ({ props: { entries: [...faq] } }),
  },
}
