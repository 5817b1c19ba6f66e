import type { ReactNode } from 'react'
import type { FastifyReply } from 'fastify'
import type { RendererOption } from '@fastify/vite'
import { documentStateElementId, type DocumentState } from '../common/document-state.ts'
import { errors } from '../errors.ts'
import { compileTemplate, type DocumentTemplate, type TemplateOptions } from './template.ts'

/** What the SSR entry (client/entry-server.tsx) gives the server. */
export interface SsrModule {
  /** `nonce`: the response's CSP nonce, which the app puts on the data scripts of a partly prerendered page's holes. */
  createElement(state: DocumentState, nonce?: string): Promise<ReactNode>
}

/** The template and SSR module documents are rendered with: the build's, or the dev server's latest. */
export interface DocumentSource {
  template(): DocumentTemplate
  client(): SsrModule
}

function isSsrModule(value: unknown): value is SsrModule {
  return typeof (value as Partial<SsrModule> | null | undefined)?.createElement === 'function'
}

/**
 * What Courier takes from @fastify/vite: the built (or, in development, freshly transformed) index.html and the SSR
 * module, nothing else. @fastify/vite calls these hooks once at start-up with the build, or on every request in
 * development, where the newest code then serves. Courier registers its own page routes (plugins/pages.ts), so the SSR
 * module lists none for @fastify/vite, and renders through `fastify.renderDocument`, not reply decorations.
 */
export function viteDocumentSource(
  deploymentId: string,
  templateOptions: TemplateOptions = {},
): {
  renderer: Partial<RendererOption>
  source: DocumentSource
} {
  let template: DocumentTemplate | undefined
  let client: SsrModule | undefined
  return {
    renderer: {
      async prepareClient(entries) {
        if (!isSsrModule(entries.ssr)) {
          throw new errors.OptionInvalid('clientModule', 'an SSR entry exporting createElement(state)')
        }
        client = entries.ssr
        return {}
      },
      createHtmlFunction(source) {
        template = compileTemplate(source, documentStateElementId, deploymentId, templateOptions)
        // @fastify/vite decorates replies with this; Courier renders through fastify.renderDocument instead.
        return function unusedReplyHtml(this: FastifyReply) {
          return this
        }
      },
    },
    source: {
      template() {
        if (!template) throw new errors.DocumentSourceNotReady('index.html')
        return template
      },
      client() {
        if (!client) throw new errors.DocumentSourceNotReady('the SSR entry')
        return client
      },
    },
  }
}
