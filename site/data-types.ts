/**
 * The data each page's loader returns (src/pages/loaders.ts) and its component receives (client/pages/): types only,
 * so the server's content never reaches the client bundle through them.
 */

/** A guide: one per delivery mechanic of the example site. */
export interface Guide {
  slug: string
  title: string
  summary: string
  sections: Array<{ heading: string; paragraphs: string[] }>
}

export interface FaqEntry {
  question: string
  answer: string
}

export interface GuideSummary {
  slug: string
  title: string
  summary: string
}

export interface GuideData {
  guide: Guide
  previous: GuideSummary | null
  next: GuideSummary | null
}

export interface StatusData {
  deploymentId: string
  serverTime: string
  uptimeS: number
  nodeVersion: string
  memory: { rss: number; heapUsed: number; heapTotal: number }
}

/** An image of the site as a page draws it: where it is, its pixel size (no layout shift) and its text. */
export interface PageImage {
  src: string
  width: number
  height: number
  alt: string
}

export interface GalleryData {
  images: PageImage[]
}

export interface FaqData {
  entries: FaqEntry[]
}

export interface HomeData {
  guides: GuideSummary[]
  /** The first view's large image: drawn with priority and preloaded in the head (site/pages.ts). */
  hero: PageImage
}

export interface GuidesData {
  /** Every guide, with the headings of its sections: the index is long enough to scroll (and to show prefetch). */
  guides: Array<GuideSummary & { sections: string[] }>
}

/**
 * The site's pages: page id -> the data its loader gives its component. The page table (site/pages.ts), the loaders
 * (src/pages/loaders.ts) and the components (client/page-modules.ts) are each checked against it by the compiler
 * (site/page-types.ts): adding a page starts here.
 */
export interface SitePageData {
  home: HomeData
  guides: GuidesData
  guide: GuideData
  status: StatusData
  faq: FaqData
  gallery: GalleryData
}
