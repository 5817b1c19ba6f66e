/**
 * The Next.js peer's content pages at run time: the peer's getStaticProps (bench/peers/next/content.ts) imports this
 * module, by the absolute path bench/peer-next.ts writes into its generated/site.json, so the peer reads the same
 * Markdown from CONTENT_DIR with Courier's own loaders and heads (site/pages/) whenever Next
 * runs a loader: at build time, on a stale request after `revalidate` seconds, and on `res.revalidate`. Nothing of
 * the content is built into the peer. Node runs this file by type stripping, like Courier's own sources.
 */
import { loadConfig } from '../config/env.ts'
import { ContentSource, contentTags } from '../src/content/content-source.ts'
import { loadSite } from '../src/pages/site.ts'
import type { PageHead, RouteParams } from '../src/common/page-types.ts'

/** The pages of the peer that show content, by Courier's page id. */
export type ContentPageId = 'home' | 'guides' | 'guide' | 'faq'

export type PeerPageAnswer = { props: { data: unknown; head: PageHead } } | { notFound: true }

/** CONTENT_DIR as Courier reads it (config/env.ts: relative to the project root, `content/` by default). */
const content = new ContentSource(loadConfig({ CONTENT_DIR: process.env.CONTENT_DIR }).contentDir)

/** A content page's data and head, read now: what Courier's loader gives for it, without its tags. */
export async function loadContentPage(id: ContentPageId, params: RouteParams = {}): Promise<PeerPageAnswer> {
  const page = (await loadSite(false)).pages.find((candidate) => candidate.id === id)
  if (!page?.load) throw new Error(`the site has no page ${id} with a loader`)
  const answer = await page.load({ params, query: {}, deploymentId: 'next-peer', content })
  if (!('props' in answer)) return { notFound: true }
  return { props: { data: answer.props, head: page.head(answer.props, params) } }
}

/** The paths of every guide now in CONTENT_DIR, in order. */
export async function guidePaths(): Promise<string[]> {
  return (await content.guideSummaries()).map((guide) => `/guides/${guide.slug}`)
}

/**
 * The paths whose pages carry a tag, as Courier's loaders tag them (site/pages/*.server.ts): Next's pages router has no
 * tags, so its revalidation route turns each into paths. An unknown tag names no page.
 */
export async function pathsOfTag(tag: string): Promise<string[]> {
  if (tag === contentTags.guides) return ['/', '/guides', ...(await guidePaths())]
  if (tag === contentTags.faq) return ['/faq']
  const slug = /^guide:(.+)$/.exec(tag)?.[1]
  return slug !== undefined && (await guidePaths()).includes(`/guides/${slug}`) ? [`/guides/${slug}`] : []
}
