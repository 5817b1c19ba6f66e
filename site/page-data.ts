import type { PageKind } from './pages.ts'

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

/** A data answer as sent: the page's props, a redirect to follow, or (with status 404) no such page. */
export type PageDataBody =
  | { pageProps: unknown; kind: PageKind }
  | { redirect: { destination: string; permanent: boolean } }
  | { notFound: true }

/** The JSON of a data answer. */
export function pageDataJson(body: PageDataBody): string {
  return JSON.stringify(body)
}
