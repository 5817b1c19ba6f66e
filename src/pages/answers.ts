import type { PageMatch } from '../../site/match.ts'
import { encodePageAnswer, type EncodedPageAnswer, type PageAnswer } from '../../site/page-data.ts'
import type { RouteParams } from '../../site/page-types.ts'
import { KeptDocumentSlot } from '../render/document-cache.ts'
import { strongEtag } from '../etag.ts'
import type { ContentCoding } from '../compression/negotiate.ts'
import type { ServerPage } from './site.ts'

/** A `static` page instance, kept for the deployment: its answer, its page data as sent, its document once rendered. */
export interface StaticPageEntry {
  answer: PageAnswer
  data: EncodedPageAnswer & { etag: string }
  /** The page data compressed, once per coding, on first use (plugins/page-data.ts). */
  encodedData: Map<ContentCoding, Buffer>
  /** The document rendered once (src/render/renderer.ts), filled on the first HTML request; none when the entry is
   * not kept (the cache is full): its requests stream. */
  document: KeptDocumentSlot | undefined
}

export interface PageAnswersOptions {
  deploymentId: string
  /** At most this many `static` page instances kept (config/server.ts). */
  maxStaticEntries: number
}

/** One key per page instance, whatever spelling of its path was asked (`/guides/x/`, `/guides//x`). */
function entryKey(match: PageMatch<ServerPage>): string {
  return `${match.page.id}:${JSON.stringify(match.params)}`
}

/**
 * Runs page loaders, at most once per request, and once per deployment for a `static` page instance: the HTML route
 * and the data route ask here, so a page's document and its data come from one loader run and one cache. A `static`
 * loader sees no query (no query can change what is kept). Concurrent first requests of a `static` instance share
 * one run; a failed run or a not-found answer is not kept (the next request runs the loader again, and unknown paths
 * cannot fill the cache).
 */
export class PageAnswers {
  readonly #deploymentId: string
  readonly #maxStaticEntries: number
  readonly #staticEntries = new Map<string, Promise<StaticPageEntry>>()
  /** The entries of #staticEntries whose loader run has ended with a page kept: no request waits for them. */
  readonly #keptEntries = new Map<string, StaticPageEntry>()

  constructor(options: PageAnswersOptions) {
    this.#deploymentId = options.deploymentId
    this.#maxStaticEntries = options.maxStaticEntries
  }

  /** The answer of a `dynamic` page for this request. */
  async load(page: ServerPage, params: RouteParams, query: Readonly<Record<string, unknown>>): Promise<PageAnswer> {
    if (!page.load) return { props: {} }
    return page.load({ params, query, deploymentId: this.#deploymentId })
  }

  /**
   * The entry of a `static` page instance when it is kept and ready: no loader runs and nothing is awaited.
   * Undefined before its first loader run has ended (then `staticEntry`).
   */
  keptEntry(match: PageMatch<ServerPage>): StaticPageEntry | undefined {
    return this.#keptEntries.size === 0 ? undefined : this.#keptEntries.get(entryKey(match))
  }

  /** The kept entry of a `static` page instance, made on first use. */
  staticEntry(match: PageMatch<ServerPage>): Promise<StaticPageEntry> {
    const key = entryKey(match)
    const kept = this.#staticEntries.get(key)
    if (kept) return kept
    const keep = this.#staticEntries.size < this.#maxStaticEntries
    const pending = this.load(match.page, match.params, {}).then((answer): StaticPageEntry => {
      const data = encodePageAnswer(answer, match.page.kind)
      const document = keep ? new KeptDocumentSlot() : undefined
      return { answer, data: { ...data, etag: strongEtag(data.body) }, encodedData: new Map(), document }
    })
    if (!keep) return pending
    this.#staticEntries.set(key, pending)
    pending.then(
      (entry) => {
        if ('notFound' in entry.answer) this.#staticEntries.delete(key)
        else this.#keptEntries.set(key, entry)
      },
      // The request that ran the loader reports the failure; the next request runs it again.
      () => this.#staticEntries.delete(key),
    )
    return pending
  }
}
