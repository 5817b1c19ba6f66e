import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ReactNode } from 'react'
import type { DocumentState } from '../../client/document-state.ts'
import { documentStateElementId } from '../../client/document-state.ts'
import type { PageDefinition, RouteParams } from '../../client/routes.ts'
import { statusTitle } from '../../config/status-titles.ts'
import { applicationErrorMessage, digestLine, lateErrorElementId } from '../../client/errors/messages.ts'
import { assignDigest } from '../digest.ts'
import type { PagePreloads } from './page-preloads.ts'
import { serializeForScript } from './serialize.ts'
import { RenderTimeoutError, renderStream } from './stream.ts'
import { DocumentCache, documentBytes, type KeptDocument } from './document-cache.ts'
import { renderOnce } from './render-once.ts'
import { compileTemplate, escapeHtml, type DocumentHead, type DocumentTemplate } from './template.ts'

/** What the SSR entry (client/entry-server.tsx) gives the server. */
export interface ClientModule {
  pages: readonly PageDefinition[]
  createElement(state: DocumentState, page: PageDefinition | undefined): Promise<ReactNode>
}

export type RenderTarget =
  | { type: 'page'; page: PageDefinition; params: RouteParams; data: unknown }
  | { type: 'error'; statusCode: number; digest?: string }

export type RenderDocument = (this: FastifyReply, target: RenderTarget) => Promise<FastifyReply>

export interface RendererOptions {
  renderTimeoutMs: number
  /** The chunks a page needs beyond the entry (production); none in development, where Vite serves modules. */
  preloadsFor?: (pageId: string) => PagePreloads
  /** At most this many documents rendered once and kept (config/server.ts); 0 streams every document. */
  documentCacheEntries?: number
}

/** The client is gone: pending boundaries end quietly, nothing is logged as a server error. */
export class ClientGoneError extends Error {
  override name = 'ClientGoneError'
}

/**
 * Documents are never stored by shared caches: filtered pages carry a per-request CSP nonce, which a cache must not
 * replay. Static pages may still be kept by the browser and revalidated; dynamic ones are never stored.
 */
export const htmlCacheControl = {
  static: 'private, no-cache',
  dynamic: 'private, no-cache, no-store, max-age=0, must-revalidate',
  error: 'no-store',
} as const

function stateFor(target: RenderTarget, deploymentId: string, host: string): DocumentState {
  if (target.type === 'page') {
    return {
      type: 'page',
      pageId: target.page.id,
      kind: target.page.kind,
      params: target.params,
      data: target.data,
      deploymentId,
    }
  }
  return {
    type: 'error',
    statusCode: target.statusCode,
    title: statusTitle(target.statusCode),
    ...(target.digest ? { digest: target.digest, host } : {}),
    deploymentId,
  }
}

function headFor(target: RenderTarget, preloadsFor: RendererOptions['preloadsFor']): DocumentHead {
  if (target.type === 'error') return { title: `${target.statusCode}: ${statusTitle(target.statusCode)}` }
  const preloads = preloadsFor?.(target.page.id)
  return {
    ...target.page.head(target.data as never, target.params),
    ...(preloads ? { preloadModules: preloads.modules, preloadStyles: preloads.styles } : {}),
  }
}

/**
 * Which documents are the same for every request of the deployment, but for the nonce: `static` pages (by page and
 * parameters; their loaders see no query) and error pages without a digest (by status). Their document state holds
 * no request value: the host only comes with a digest. Undefined: render this one per request.
 */
function keptDocumentKey(target: RenderTarget): string | undefined {
  if (target.type === 'error') return target.digest ? undefined : `error:${target.statusCode}`
  return target.page.kind === 'static' ? `page:${target.page.id}:${JSON.stringify(target.params)}` : undefined
}

/** Last resort when the error page itself cannot render: plain HTML, same title, nothing from the error. */
export function plainErrorDocument(statusCode: number, digest?: string): string {
  const title = `${statusCode}: ${statusTitle(statusCode)}`
  const digestLine = digest ? `<p>Digest: ${escapeHtml(digest)}</p>` : ''
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${digestLine}</body></html>`
}

/**
 * The application error screen (server-side variant), streamed after #root when a Suspense boundary failed once the
 * shell had been sent: the status cannot change any more, but the visitor still sees that the page failed, and
 * with which digest, without JavaScript too. Script-free, outside what React hydrates.
 */
export function lateErrorScreen(host: string, digest: string): string {
  return (
    `<section id="${lateErrorElementId}" class="error-screen application-error" role="alert" data-digest="${escapeHtml(digest)}">` +
    `<h1 class="application-error-message">${escapeHtml(applicationErrorMessage('server', host))}</h1>` +
    `<p class="application-error-digest">${escapeHtml(digestLine(digest))}</p></section>`
  )
}

function reportRenderError(request: FastifyRequest, error: unknown): string | undefined {
  if (error instanceof ClientGoneError) return undefined
  const { digest, isNew } = assignDigest(error, request.id)
  if (isNew) {
    if (error instanceof RenderTimeoutError) request.log.warn({ err: error, digest }, 'render timed out')
    else request.log.error({ err: error, digest }, 'render failed')
  }
  return digest
}

/**
 * reply.render: streams one document (a page or the error page) with renderToPipeableStream. Status and headers
 * are sent when the shell is ready; an error before that rejects, for the error handler to answer.
 */
export function createRenderDocument(
  client: ClientModule,
  deploymentId: string,
  options: RendererOptions,
): RenderDocument {
  const keptDocuments = new DocumentCache(options.documentCacheEntries ?? 0)

  /** Renders the document of `target` once, with the placeholder nonce; undefined when it is not worth keeping. */
  async function renderKept(request: FastifyRequest, key: string, template: DocumentTemplate, target: RenderTarget) {
    const state = stateFor(target, deploymentId, '')
    const stateJson = serializeForScript(state)
    const head = headFor(target, options.preloadsFor)
    const result = await renderOnce({
      element: await client.createElement(state, target.type === 'page' ? target.page : undefined),
      opening: (nonce) => template.open(head, nonce),
      closing: (nonce) => template.close(stateJson, nonce),
      timeoutMs: options.renderTimeoutMs,
    }).catch(() => 'render-error' as const)
    if (typeof result === 'string') {
      request.log.debug({ document: key, reason: result }, 'document not kept')
      return undefined
    }
    request.log.debug({ document: key, bytes: result.length }, 'document rendered once')
    return result
  }

  function sendKept(reply: FastifyReply, target: RenderTarget, document: KeptDocument) {
    const statusCode = target.type === 'page' ? 200 : target.statusCode
    const cacheControl = target.type === 'page' ? htmlCacheControl[target.page.kind] : htmlCacheControl.error
    return reply
      .code(statusCode)
      .type('text/html; charset=utf-8')
      .header('cache-control', cacheControl)
      .send(documentBytes(document, reply.request.cspNonce))
  }

  return async function renderDocument(this: FastifyReply, target) {
    const reply = this
    const request = reply.request
    const template = (reply.html as unknown as () => DocumentTemplate)()
    const key = keptDocumentKey(target)
    if (key !== undefined) {
      const kept = await keptDocuments.get(key, () => renderKept(request, key, template, target))
      if (kept) return sendKept(reply, target, kept)
    }
    const nonce = request.cspNonce
    const state = stateFor(target, deploymentId, request.host)
    const element = await client.createElement(state, target.type === 'page' ? target.page : undefined)
    // The first boundary that failed: once the shell is out, the document ends with the error screen for it.
    let failedBoundaryDigest: string | undefined
    const { stream, abort } = await renderStream({
      element,
      opening: template.open(headFor(target, options.preloadsFor), nonce),
      closing: () =>
        template.close(
          serializeForScript(state),
          nonce,
          failedBoundaryDigest ? lateErrorScreen(request.host, failedBoundaryDigest) : '',
        ),
      nonce,
      timeoutMs: options.renderTimeoutMs,
      onError(error) {
        const digest = reportRenderError(request, error)
        failedBoundaryDigest ??= digest
        return digest
      },
    })
    reply.raw.once('close', function abortWhenClientGone() {
      if (reply.raw.writableFinished) return
      request.log.debug('render aborted: the client closed the connection')
      abort(new ClientGoneError('the client closed the connection'))
    })
    const statusCode = target.type === 'page' ? 200 : target.statusCode
    const cacheControl = target.type === 'page' ? htmlCacheControl[target.page.kind] : htmlCacheControl.error
    return reply.code(statusCode).type('text/html; charset=utf-8').header('cache-control', cacheControl).send(stream)
  }
}

/** reply.html: the compiled document template (from the build, or per request from Vite's dev server). */
export function createTemplateFunction(html: string, deploymentId: string): () => DocumentTemplate {
  const template = compileTemplate(html, documentStateElementId, deploymentId)
  return function documentTemplate() {
    return template
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's CSP nonce, set by the request filter on filtered paths. */
    cspNonce: string | undefined
  }
}

/** Streams `target` through the request's renderer (@fastify/vite decorates reply.render with ours). */
export function sendDocument(reply: FastifyReply, target: RenderTarget): Promise<FastifyReply> {
  return (reply.render as unknown as RenderDocument).call(reply, target)
}

/** Whether this reply can render documents yet (false before @fastify/vite is ready, or after a dev-server fault). */
export function canRenderDocument(reply: FastifyReply): boolean {
  return typeof reply.render === 'function' && typeof reply.html === 'function'
}
