import type { RouteParams, PageKind } from './pages.ts'

/** What the server embeds in the page for hydration: the client renders exactly this first. */
export type DocumentState =
  | {
      type: 'page'
      pageId: string
      kind: PageKind
      params: RouteParams
      data: unknown
      deploymentId: string
    }
  | {
      type: 'error'
      statusCode: number
      title: string
      digest?: string
      /** The host the request named: the application error screen says what was being loaded. */
      host?: string
      deploymentId: string
    }

/** Id of the `<script type="application/json">` element that carries the state. */
export const documentStateElementId = '__COURIER_DATA__'
