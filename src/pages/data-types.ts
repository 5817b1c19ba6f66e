/** The data each page's loader returns and its component receives. Types only: shared with the client. */
import type { Guide } from '../content/guides.ts'
import type { FaqEntry } from '../content/faq.ts'

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
