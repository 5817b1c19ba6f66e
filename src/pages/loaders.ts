/**
 * Server-only page loaders, keyed by page id (site/pages.ts). Nothing here may reach the browser: the client
 * bundle never imports this file, and test/build/client-bundle.test.ts checks that its content is absent from the built client.
 */
import { contentTags, type ContentSource } from '../content/content-source.ts'
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
  /** `tags` name what the answer was made of (`guides`, `guide:<slug>`): a revalidation of a tag regenerates every
   * kept page whose answer carries it (docs/content.md). */
  | { props: Data; tags?: readonly string[] }
  | { notFound: true }
  | { redirect: { destination: string; permanent: boolean } }

export interface LoaderContext {
  params: RouteParams
  query: Readonly<Record<string, unknown>>
  deploymentId: string
  /** The site's content, read at run time from CONTENT_DIR (docs/content.md). */
  content: ContentSource
}

export type Loader<Data = unknown> = (context: LoaderContext) => LoaderResult<Data> | Promise<LoaderResult<Data>>

export interface PageServerSide<Data = unknown> {
  load?: Loader<Data>
  /** Parameters of every instance of a parametrised page: feeds the sitemap. */
  staticParams?: (context: { content: ContentSource }) => Promise<RouteParams[]>
}

function summaryOf(guide: GuideSummary | undefined): GuideSummary | null {
  return guide ? { slug: guide.slug, title: guide.title, summary: guide.summary } : null
}

const galleryImages: PageImage[] = siteImages.map(({ src, width, height, alt }) => ({ src, width, height, alt }))

export const pageLoaders: Readonly<Record<string, PageServerSide<unknown>>> = {
  home: {
    load: async ({ content }): Promise<LoaderResult<HomeData>> => ({
      props: { guides: await content.guideSummaries(), hero: galleryImages[0]! },
      tags: [contentTags.guides],
    }),
  },
  guides: {
    load: async ({ content }): Promise<LoaderResult<GuidesData>> => ({
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
    load: async ({ params, content }): Promise<LoaderResult<GuideData>> => {
      const guides = await content.guides()
      const index = guides.findIndex((guide) => guide.slug === params.slug)
      if (index === -1) return { notFound: true }
      const { slug, title, summary, sections } = guides[index]!
      return {
        props: { guide: { slug, title, summary, sections }, previous: summaryOf(guides[index - 1]), next: summaryOf(guides[index + 1]) },
        // Its neighbours' titles are in its pager: a change to any guide may change it.
        tags: [contentTags.guides, contentTags.guide(slug)],
      }
    },
    staticParams: async ({ content }) => (await content.guideSummaries()).map((guide) => ({ slug: guide.slug })),
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
    load: async ({ content }): Promise<LoaderResult<FaqData>> => ({ props: await content.faq(), tags: [contentTags.faq] }),
  },
}
