/**
 * Server-only page loaders, keyed by page id (client/routes.ts). Nothing here may reach the browser: the client
 * bundle never imports this file, and test/build/client-bundle.test.ts checks that its content is absent from the built client.
 */
import { guides } from '../content/guides.ts'
import { faq } from '../content/faq.ts'
import { siteImages } from '../content/images.ts'
import type { RouteParams } from '../../client/routes.ts'
import type { FaqData, GalleryData, GuideData, GuideSummary, PageImage, StatusData } from './data-types.ts'
import type { HomeData } from '../../client/pages/home.tsx'
import type { GuidesData } from '../../client/pages/guides.tsx'
import type { SlowData } from '../../client/pages/test-slow.tsx'
import type { LateErrorData } from '../../client/pages/test-late-error.tsx'
import type { TestLinksData } from '../../client/pages/test-links.tsx'

/**
 * `?delay=<ms>` of a test route: a whole number of milliseconds up to 5 s, `never` (infinity: the data never arrives),
 * else the route's default.
 */
function testDelayMs(requested: unknown, fallbackMs: number): number {
  if (requested === 'never') return Number.POSITIVE_INFINITY
  const delayMs = Number(requested)
  return Number.isInteger(delayMs) && delayMs >= 0 && delayMs <= 5000 ? delayMs : fallbackMs
}

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

export const pageServerSide: Readonly<Record<string, PageServerSide<unknown>>> = {
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
      const memory = process.memoryUsage()
      return {
        props: {
          deploymentId,
          serverTime: new Date().toISOString(),
          uptimeS: process.uptime(),
          nodeVersion: process.version,
          memory: { rss: memory.rss, heapUsed: memory.heapUsed, heapTotal: memory.heapTotal },
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
  'test-slow': {
    load: ({ query }): LoaderResult<SlowData> => ({ props: { delayMs: testDelayMs(query.delay, 300) } }),
  },
  'test-server-error': {
    load: () => {
      throw new Error('a page loader failed on purpose (test route)')
    },
  },
  'test-late-error': {
    load: ({ query }): LoaderResult<LateErrorData> => ({ props: { delayMs: testDelayMs(query.delay, 100) } }),
  },
  'test-links': {
    // 20 distinct static pages to link to: every guide, then guides that do not exist (their data is a not-found).
    load: ({ query }): LoaderResult<TestLinksData> => {
      const slugs = guides.map((guide) => guide.slug)
      for (let index = 1; slugs.length < 20; index++) slugs.push(`missing-${index}`)
      return { props: { layout: query.layout === 'grid' ? 'grid' : 'spaced', hrefs: slugs.map((slug) => `/guides/${slug}`) } }
    },
  },
}
