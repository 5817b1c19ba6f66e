/**
 * What the peer shares with Courier, written by the bench (bench/peer-next.ts) into generated/site.json before each
 * build: the static pages' data and heads, the policy, the image sizes, each content page's `revalidate` and the module
 * its content pages load from at run time (content.ts). The peer never holds a copy of the content.
 */
import site from './generated/site.json'

export interface PageHead {
  title: string
  description?: string
}

export interface GuideSummary {
  slug: string
  title: string
  summary: string
}

/** Content Courier parsed from Markdown: an element tree (hast) without raw HTML. */
export type MarkdownNode =
  | { type: 'root'; children: MarkdownNode[] }
  | { type: 'element'; tagName: string; properties: Record<string, unknown>; children: MarkdownNode[] }
  | { type: 'text'; value: string }
  | { type: 'comment' | 'doctype' | 'raw'; value?: string }

export interface GuideData {
  guide: GuideSummary & { sections: Array<{ heading: string; anchor: string; content: MarkdownNode }> }
  previous: GuideSummary | null
  next: GuideSummary | null
}

export interface PageImage {
  src: string
  width: number
  height: number
  alt: string
}

/** One page of the list of guides, from Courier's index (`/guides` is page 1). */
export interface GuidesData {
  guides: GuideSummary[]
  page: number
  pages: number
  total: number
}

export interface HomeData {
  guides: GuidesData
  hero: PageImage
}

export interface GalleryData {
  images: PageImage[]
}

export interface FaqData {
  entries: Array<{ question: string; anchor: string; answer: MarkdownNode }>
}

export interface StatusData {
  deploymentId: string
  serverTime: string
  uptimeS: number
  nodeVersion: string
  memory: { rss: number; heapUsed: number; heapTotal: number }
}

export interface Site {
  /** Seconds a content page is kept before a request regenerates it in the background (Courier's page table). */
  revalidate: { home: number; guides: number; guide: number; faq: number }
  /** Courier's limits of a revalidation call (config/content.ts). */
  revalidation: { maxItems: number; maxItemLength: number; minTokenLength: number }
  runtime: {
    /** The file URL of bench/peer-content.ts: Courier's loaders over CONTENT_DIR, imported at run time. */
    contentModule: string
  }
  gallery: { data: GalleryData; head: PageHead }
  status: { head: PageHead }
  notFound: { head: PageHead; statusCode: number; statusTitle: string }
  columnSizes: string
  images: { deviceSizes: number[]; imageSizes: number[]; minimumCacheTTL: number }
  policy: {
    cspHead: string
    cspTail: string
    cspWithoutNonce: string
    alwaysHeaders: Record<string, string>
    documentHeaders: Record<string, string>
    dynamicPaths: string[]
  }
}

export default site as Site
