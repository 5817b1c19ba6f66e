import type { RouteParams, PageKind } from './page-types.ts'

/** What the server embeds in the page for hydration: the client renders exactly this first. */
export type DocumentState =
  | {
      type: 'page'
      pageId: string
      kind: PageKind
      params: RouteParams
      data: unknown
      deploymentId: string
      /**
       * A partly prerendered page resumed from its kept shell: `data` holds its kept data only, and its request-time
       * data (`PartialData.live`) came inside its holes, each carrying it in a script element of `liveDataAttribute`.
       */
      liveInHoles?: true
      /** What the page's action said of a submission it refused (docs/forms.md): errors by field, values kept. */
      actionData?: unknown
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

/**
 * The attribute of the `<script type="application/json">` element each hole of a partly prerendered page carries its
 * request-time data in (client/components/request-time.tsx): the data arrives with the hole, under the response's
 * nonce, and the browser reads it from there before hydrating.
 */
export const liveDataAttribute = 'data-courier-live'
