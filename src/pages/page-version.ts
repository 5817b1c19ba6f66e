import type { PageMatch } from '../common/match.ts'
import { encodePageAnswer, type EncodedPageAnswer, type PageAnswer } from '../common/page-data.ts'
import { strongEtag } from '../etag.ts'
import type { PageDeclared, PageHead, RouteParams } from '../common/page-types.ts'
import type { ServerPage } from './site.ts'

/** A page instance's version as its loader made it: what every instance builds the same version (and ETag) from. */
export interface LoadedVersion {
  answer: PageAnswer
  /** The tags its loader gave (`guides`, `guide:<slug>`): `POST /api/revalidate` names them. */
  tags: readonly string[]
  /** When its loader ran (ms since the epoch): its `revalidate` time counts from here on every instance. */
  generatedAt: number
}

/**
 * One version of a `static` page instance, frozen: its answer, its page data as sent, its tags and times. Nothing is
 * added to it later: the document rendered from it (src/render/page-documents.ts) and its page data compressed per
 * coding (by the sender, src/delivery/send.ts) are kept by render and delivery, keyed by the version and its data.
 */
export interface PageVersion extends LoadedVersion {
  /** The page instance it is a version of (`pageKey`). */
  readonly key: string
  readonly data: Readonly<EncodedPageAnswer & { etag: string }>
  /** From when it is stale (its page's `revalidate`); undefined: kept until revalidated on demand. */
  readonly staleAt: number | undefined
}

/** One key per page instance, whatever spelling of its path was asked (`/guides/x/`, `/guides//x`). */
export function pageKey(match: PageMatch<ServerPage>): string {
  return `${match.page.id}:${JSON.stringify(match.params)}`
}

/** The path of a page instance: its pattern with its parameters. */
export function instancePath(match: PageMatch<ServerPage>): string {
  return match.page.path.replace(/:(\w+)/g, (_whole, name: string) => encodeURIComponent(match.params[name] ?? ''))
}

/** From when a version loaded at `generatedAt` is stale: its page's `revalidate` later; undefined without one. */
export function staleAtOf(page: ServerPage, generatedAt: number): number | undefined {
  return page.revalidate === undefined ? undefined : generatedAt + page.revalidate * 1000
}

/** The head an answer's page data carries: the page's, for its props (none to tell for a redirect or a not-found). */
export function headOf(page: Pick<PageDeclared, 'head'>, answer: PageAnswer, params: RouteParams): PageHead {
  return 'props' in answer ? page.head(answer.props, params) : { title: '' }
}

/** The frozen version of `match` made of what its loader answered. */
export function pageVersion(match: PageMatch<ServerPage>, loaded: LoadedVersion): PageVersion {
  const { answer, tags, generatedAt } = loaded
  const data = encodePageAnswer(answer, match.page.kind, headOf(match.page, answer, match.params))
  return Object.freeze({
    key: pageKey(match),
    answer,
    data: Object.freeze({ ...data, etag: strongEtag(data.body) }),
    tags,
    generatedAt,
    staleAt: staleAtOf(match.page, generatedAt),
  })
}
