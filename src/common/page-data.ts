import type { PageHead, PageKind } from './page-types.ts'

/**
 * The page-data URL and its answers, written once for the three parties that speak them: the client router asks
 * (client/router/page-data.ts), the request filter judges the page a data URL serves (src/site-policy-path.ts), the
 * data route answers (plugins/page-data.ts). docs/page-data-and-router.md "The data URL" describes the protocol.
 */

/** Every data URL starts here; the deployment id and the page path follow: `/_next/data/<id>/<page path>.json`. */
export const pageDataPrefix = '/_next/data/'

/** The header a data request names its deployment in, and a data answer too. */
export const deploymentIdHeader = 'x-deployment-id'

const dataSuffix = '.json'
/** `/` has no last segment to name its file: its data is `index.json`. */
const rootFile = 'index'

/** `/` -> `/_next/data/<id>/index.json`, `/guides/x` + `?q=1` -> `/_next/data/<id>/guides/x.json?q=1`. */
export function pageDataUrl(deploymentId: string, pathname: string, search = ''): string {
  const path = pathname.replace(/\/+$/, '') || `/${rootFile}`
  return `${pageDataPrefix}${encodeURIComponent(deploymentId)}${path}${dataSuffix}${search}`
}

/** What the part of a data URL after `/_next/data/<id>/` names. */
export interface DataFile {
  /** The page path: `guides/x.json` -> `/guides/x`, `index.json` -> `/` (without the suffix, read the same way). */
  pagePath: string
  /** Whether it ends in `.json`: only such a name is a data file; the request filter judges the others all the same. */
  isJson: boolean
}

export function readDataFile(rest: string): DataFile {
  const isJson = rest.endsWith(dataSuffix)
  const name = isJson ? rest.slice(0, -dataSuffix.length) : rest
  return { pagePath: name === rootFile ? '/' : `/${name}`, isJson }
}

/** Where a loader (or the request filter) sends the visitor instead: 308 when permanent, else 307. */
export interface PageRedirect {
  destination: string
  permanent: boolean
}

/**
 * A page's answer, one type from the loader to the client: its props, a redirect, or no such page. Loaders return it
 * (the shape of Next's getServerSideProps), the server keeps and renders it, the data route and the request filter
 * encode it, the client router decodes it: `encodePageAnswer` and `decodePageAnswer` below are its one codec.
 */
export type PageAnswer<Data = unknown> =
  { props: Data; head?: PageHead } | { notFound: true } | { redirect: PageRedirect }

/** Which of the three a page answer is (the loader span and the page-data metric name it). */
export type PageAnswerKind = 'props' | 'notFound' | 'redirect'

export function pageAnswerKind(answer: PageAnswer): PageAnswerKind {
  return 'notFound' in answer ? 'notFound' : 'redirect' in answer ? 'redirect' : 'props'
}

/** A page answer as the data route sends it: its status and its JSON. */
export interface EncodedPageAnswer {
  statusCode: 200 | 404
  body: string
}

/**
 * The JSON of a page answer, Next's page-data shape: `{ pageProps, kind, head }` (200), `{ redirect: { destination,
 * permanent } }` (200: the client router follows it, fetch never does) or `{ notFound: true }` (404). Props travel
 * with the page's kind and its head (title, description: what a navigation sets, so no head reaches the browser as
 * code); a redirect or a not-found answer has none to tell. Each object is built here, key by key, so the bytes are
 * the same whatever order or extra keys a loader's object has.
 */
export function encodePageAnswer(answer: PageAnswer, kind: PageKind, head: PageHead): EncodedPageAnswer
export function encodePageAnswer(answer: Exclude<PageAnswer, { props: unknown }>): EncodedPageAnswer
export function encodePageAnswer(answer: PageAnswer, kind?: PageKind, head?: PageHead): EncodedPageAnswer {
  if ('notFound' in answer) return { statusCode: 404, body: JSON.stringify({ notFound: true }) }
  if ('redirect' in answer) {
    const { destination, permanent } = answer.redirect
    return { statusCode: 200, body: JSON.stringify({ redirect: { destination, permanent } }) }
  }
  const sentHead = head && { title: head.title, description: head.description }
  return { statusCode: 200, body: JSON.stringify({ pageProps: answer.props, kind, head: sentHead }) }
}

/** A page head as the data carries it: a title, and a description when it is a string. */
function readHead(value: unknown): PageHead | undefined {
  if (!isRecord(value) || typeof value.title !== 'string') return undefined
  return typeof value.description === 'string'
    ? { title: value.title, description: value.description }
    : { title: value.title }
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null
}

/**
 * A data answer as the client reads it (its status and parsed JSON): the page answer it encodes, or undefined when it
 * is none of the three (then the router falls back to a full page load). The props are the page's data as its loader
 * gave them (`definePage<typeof server>` checked them against the page's component), with the page's head.
 */
export function decodePageAnswer(statusCode: number, json: unknown): PageAnswer | undefined {
  if (!isRecord(json)) return undefined
  if (statusCode === 404 && json.notFound === true) return { notFound: true }
  if (statusCode !== 200) return undefined
  const redirect = json.redirect
  if (isRecord(redirect) && typeof redirect.destination === 'string') {
    return { redirect: { destination: redirect.destination, permanent: redirect.permanent === true } }
  }
  if ('pageProps' in json && (json.kind === 'static' || json.kind === 'dynamic')) {
    const head = readHead(json.head)
    return head ? { props: json.pageProps, head } : { props: json.pageProps }
  }
  return undefined
}
