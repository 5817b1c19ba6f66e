/**
 * Shapes the example's pages share (their loaders, site/pages/*.server.ts, return them; their components draw them):
 * types only, so the server's content never reaches the client bundle through them. A page's own data type is what
 * its loader returns (`PageProps<typeof server>`); nothing here has to list the pages.
 */
import type { Root } from 'hast'
import type { PartialData } from '../src/common/page-types.ts'

/**
 * Content written in Markdown (CONTENT_DIR, docs/content.md) as the server parsed it: an element tree (hast) without
 * raw HTML, headings with their `id`. The client renders it (client/components/markdown.tsx); the parser stays on the
 * server.
 */
export type MarkdownContent = Root

/** A guide: one per delivery mechanic of the example site, from `content/guides/<slug>.md`. */
export interface Guide {
  slug: string
  title: string
  summary: string
  /** One per `##` heading of the file: the heading, its anchor (`#id`) and what follows it up to the next one. */
  sections: Array<{ heading: string; anchor: string; content: MarkdownContent }>
}

/** A question of the FAQ, from `content/faq/<anchor>.md`. */
export interface FaqEntry {
  question: string
  /** The question's anchor on the page (`/faq#<anchor>`): its file name. */
  anchor: string
  answer: MarkdownContent
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

/** What `/status` keeps with its prerendered shell: the same for the whole deployment. */
export interface StatusKept {
  deploymentId: string
  nodeVersion: string
}

/** What `/status` reads for each request: its holes. */
export interface StatusLive {
  serverTime: string
  uptimeS: number
  memory: { rss: number; heapUsed: number; heapTotal: number }
}

/** `/status` is partly prerendered (docs/rendering.md "Partial prerendering"). */
export type StatusData = PartialData<StatusKept, StatusLive>

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

/**
 * One page of the list of guides, in order: at most `listingPageSize` of them (config/content.ts), so a listing's
 * document is the same size whatever the number of guides (docs/content.md "How many pages").
 */
export interface GuideListPage {
  guides: GuideSummary[]
  /** This page's number, from 1 (`/guides` is page 1, `/guides/page/<n>` the others). */
  page: number
  /** How many pages the list has. */
  pages: number
  /** How many guides there are. */
  total: number
}

export interface HomeData {
  /** The first page of the list of guides. */
  guides: GuideListPage
  /** The first view's large image: drawn with priority and preloaded in the head (site/pages/home.tsx). */
  hero: PageImage
}

/** `/guides` and `/guides/page/<n>`: one page of the list of guides. */
export type GuidesData = GuideListPage
