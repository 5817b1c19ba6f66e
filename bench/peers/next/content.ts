/**
 * The content pages' loaders at run time. Courier's loaders, by the module the bench names in generated/site.json
 * (bench/peer-content.ts, loaded by Node as it is: not bundled), read the same Markdown from CONTENT_DIR each time
 * Next runs a getStaticProps: at build time, in the background after `revalidate` seconds, and on `res.revalidate`
 * (pages/api/revalidate.ts). Each run logs one JSON line on stdout, so a bench can count loader runs.
 */
import site, { type PageHead } from './site'

export type ContentPageId = 'home' | 'guides' | 'guide' | 'faq'

type PageAnswer<Data> = { props: { data: Data; head: PageHead } } | { notFound: true }

/** What bench/peer-content.ts exports (Courier's TypeScript project checks that module; this peer only calls it). */
interface PeerContent {
  loadContentPage(id: ContentPageId, params?: Record<string, string>): Promise<PageAnswer<unknown>>
  guidePaths(): Promise<string[]>
  pathsOfTag(tag: string): Promise<string[]>
}

/** The module, imported by Node at run time (webpackIgnore: the bundler leaves the import as it is). */
export function peerContent(): Promise<PeerContent> {
  return import(/* webpackIgnore: true */ site.runtime.contentModule) as Promise<PeerContent>
}

/**
 * One loader run of a content page: its data and head as Courier's loader gives them now, with the page's
 * `revalidate` (Courier's page table, site.json), and one log line `peer loader run` naming the page's path.
 */
export async function runContentLoader<Data>(id: ContentPageId, path: string, params: Record<string, string> = {}) {
  const startedAt = performance.now()
  const answer = (await (await peerContent()).loadContentPage(id, params)) as PageAnswer<Data>
  const durationMs = Math.round((performance.now() - startedAt) * 10) / 10
  process.stdout.write(
    `${JSON.stringify({ msg: 'peer loader run', page: id, path, durationMs, pid: process.pid, time: Date.now() })}\n`,
  )
  return { ...answer, revalidate: site.revalidate[id] }
}
