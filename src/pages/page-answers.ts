import { channel, tracingChannel } from 'node:diagnostics_channel'
import type { PageAnswer } from '../common/page-data.ts'
import { pageCacheHeader } from './cache-control.ts'
import type { PageVersion } from './page-version.ts'
import type { ServerPage } from './site.ts'

/**
 * What a request for a page gets, one kind per page kind (`PageVersions.answer`): the document route and the
 * page-data route only turn it into bytes.
 * - `kept`: a `static` page's version, kept for the deployment (`kept` false: pushed out by the bounds, or replaced
 *   meanwhile, so its document streams), with its freshness when the page has `revalidate`;
 * - `computed`: a `dynamic` page's answer, computed for this request;
 * - `partial`: a partly prerendered page's kept half (its shell's data) and its request-time loader, run per request.
 */
export type PageResult = KeptResult | ComputedResult | PartialResult

export interface KeptResult {
  kind: 'kept'
  version: PageVersion
  kept: boolean
  freshness: Freshness
}

export interface ComputedResult {
  kind: 'computed'
  answer: PageAnswer
}

export interface PartialResult {
  kind: 'partial'
  version: PageVersion
  kept: boolean
  /** The request-time loader's answer for this request (its page data runs it as a `dynamic` page's). */
  loadLive: () => Promise<PageAnswer>
}

/** A kept version served fresh (`HIT`) or past its `revalidate` time while it regenerates (`STALE`); undefined: the
 * page has no `revalidate`. */
export type Freshness = 'HIT' | 'STALE' | undefined

/** Says a kept answer's freshness in its header (`x-courier-cache`, as Next's `x-nextjs-cache`); nothing for others. */
export function markFreshness(reply: { header(name: string, value: string): unknown }, result: PageResult): void {
  if (result.kind === 'kept' && result.freshness !== undefined) reply.header(pageCacheHeader, result.freshness)
}

/** A loader's redirect as an HTTP status: permanent 308, else 307 (the method and body kept either way). */
export function redirectStatus(redirect: { permanent?: boolean | undefined }): 307 | 308 {
  return redirect.permanent ? 308 : 307
}

/**
 * A page's loader run for a request, published for observers (tracing subscribes: src/tracing/page-spans.ts): `start`
 * when a request waits for a run (its own, or the first load it shares), `asyncEnd` with its `answer` once it
 * settled, `error` when it failed. `origin` is whatever the route passed (its span parent); `owner` the page versions
 * that published it, so an observer hears its own app only.
 */
export interface PageLoad {
  owner: object
  origin: object | undefined
  page: ServerPage
  answer?: PageAnswer
  error?: unknown
}

export const pageLoads = tracingChannel<PageLoad>('courier:page.load')

/**
 * A `static` page answered from its kept version (no loader run), published for observers: the same fields as a
 * `pageLoads` context, with the kept answer.
 */
export const keptAnswers = channel('courier:page.kept')
