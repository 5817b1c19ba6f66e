/**
 * The HTML document around the streamed app, compiled once from Vite's index.html (the build's, or the dev server's
 * transformed one). Kept free of heavy imports: vite.config.ts reads the constants below.
 */
import { entryLoaderSource, type EntryLoaderOptions } from './entry-loader.ts'

/** URL prefix of built client assets (docs/rendering.md "Assets"). */
export const assetBase = '/_next/static/'

/** Vite writes `nonce="<this>"` on the tags it emits (html.cspNonce); each response swaps in its own nonce. */
export const noncePlaceholderValue = '__COURIER_NONCE__'
const noncePlaceholderAttribute = ` nonce="${noncePlaceholderValue}"`

const markers = { head: '<!--courier-head-->', app: '<!--courier-app-->', state: '<!--courier-state-->' } as const

export interface DocumentHead {
  title: string
  description?: string
  /** Module chunks and stylesheets the page needs beyond the entry: preloaded so they load in parallel with it. */
  preloadModules?: readonly string[]
  preloadStyles?: readonly string[]
}

export interface DocumentTemplate {
  /**
   * Everything before the app's markup: doctype, head with title and meta, the opening of #root. `headTags` go first
   * in the head, per request (the document's `traceparent` meta, src/tracing/).
   */
  open(head: DocumentHead, nonce: string | undefined, headTags?: string): string
  /**
   * Where `headTags` go in a document opened without them, in bytes from its start; undefined when the bytes before
   * that place depend on the nonce (a document kept for the deployment then gets no per-request head tags).
   */
  readonly headTagsAt: number | undefined
  /**
   * Everything after it: the hydration state script and the end of the document. `afterApp` goes right after #root
   * (outside what React hydrates): the application error screen when a boundary failed after the shell.
   */
  close(stateJson: string, nonce: string | undefined, afterApp?: string): string
}

export class TemplateError extends Error {
  override name = 'TemplateError'
}

const htmlEscapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => htmlEscapes[character]!)
}

const htmlUnescapes: Record<string, string> = Object.fromEntries(
  Object.entries(htmlEscapes).map(([plain, escaped]) => [escaped, plain]),
)

/** The text of an attribute value `escapeHtml` (or Vite) wrote. */
function unescapeHtml(text: string): string {
  return text.replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => htmlUnescapes[entity]!)
}

/**
 * The one way a request's nonce goes into a document: as this attribute, or nothing where the request filter gave
 * none. The template writes it; a kept document takes it between its parts (src/render/document-cache.ts).
 */
export function nonceAttribute(nonce: string | undefined): string {
  return nonce ? ` nonce="${escapeHtml(nonce)}"` : ''
}

/** Where index.html wants the deployment id (`<html data-dpl-id>`); filled in once, when the template is compiled. */
export const deploymentIdPlaceholder = '%COURIER_DEPLOYMENT_ID%'

export interface TemplateOptions {
  /**
   * The text of a stylesheet the template links (its `href`), to put into the document instead of the link; undefined
   * keeps the link. An inlined stylesheet costs no request before the first paint.
   */
  inlineStylesheet?: ((href: string) => string | undefined) | undefined
  /**
   * Starts the entry script and the page's chunks after the first paint, through an inline loader
   * (src/render/entry-loader.ts), instead of naming them in the head; undefined keeps Vite's module script (the dev
   * server, whose client must run at once).
   */
  startEntryAfterFirstPaint?: EntryLoaderOptions | undefined
}

const entryModuleScript = /<script type="module"[^>]*\bsrc="([^"]+)"[^>]*><\/script>\s*/g

/** Vite's `<link rel="stylesheet">`s as `<style>`s with the text `inlineStylesheet` gives, where it gives one. */
function inlineStylesheets(tags: string, inlineStylesheet: TemplateOptions['inlineStylesheet']): string {
  if (!inlineStylesheet) return tags
  return tags.replace(/<link\b[^>]*\brel="stylesheet"[^>]*>/g, (tag) => {
    const href = /\bhref="([^"]+)"/.exec(tag)?.[1]
    const text = href === undefined ? undefined : inlineStylesheet(unescapeHtml(href))
    // Text that could end the element early stays behind its link.
    if (text === undefined || /<\/style/i.test(text)) return tag
    return `<style${noncePlaceholderAttribute}>${text}</style>`
  })
}

/** Splits at the markers once; per response only the nonce and the head are filled in. */
export function compileTemplate(
  source: string,
  stateElementId: string,
  deploymentId: string,
  options: TemplateOptions = {},
): DocumentTemplate {
  const html = source.replaceAll(deploymentIdPlaceholder, escapeHtml(deploymentId))
  const headAt = html.indexOf(markers.head)
  const appAt = html.indexOf(markers.app)
  const stateAt = html.indexOf(markers.state)
  if (headAt === -1 || appAt === -1 || stateAt === -1 || !(headAt < appAt && appAt < stateAt)) {
    throw new TemplateError('index.html must hold the courier-head, courier-app and courier-state markers in order')
  }
  const beforeHead = html.slice(0, headAt)
  const headToApp = html.slice(headAt + markers.head.length, appAt)
  // What Vite wrote into the head, reordered: stylesheets and font preloads first, the rest (the entry script) after.
  const headClose = headToApp.indexOf('</head>')
  const headTags = headClose === -1 ? headToApp : headToApp.slice(0, headClose)
  const headEnd = headClose === -1 ? '' : headToApp.slice(headClose)
  const styleOrFont = /<link\b[^>]*\brel="(?:stylesheet|preload)"[^>]*>\s*/g
  let preloadTags = ''
  let stylesheetTags = ''
  for (const tag of headTags.match(styleOrFont) ?? []) {
    if (/\brel="stylesheet"/.test(tag)) stylesheetTags += tag.trim()
    else preloadTags += tag.trim()
  }
  // The font's preload before an inlined stylesheet's text: the browser asks for the font as early as it can.
  const stylesAndFonts = preloadTags + inlineStylesheets(stylesheetTags, options.inlineStylesheet)
  // The app's scripts load at low priority, as deferred scripts do: the document is already rendered, so the
  // stylesheet, the font and the image of the first view go first on a slow link, and hydration follows. With
  // `startEntryAfterFirstPaint` the entry's module script gives way to the loader, which starts it after that paint.
  const deferred = options.startEntryAfterFirstPaint
  const entries = deferred ? [...headTags.matchAll(entryModuleScript)].map((match) => unescapeHtml(match[1]!)) : []
  const loader = entries.length && deferred ? entryLoaderSource(deferred.fallbackMs) : undefined
  const entryAttribute = ` data-entry="${escapeHtml(entries.join(' '))}"`
  const otherHeadTags = headTags.replace(styleOrFont, '')
  const headRest = (loader ? otherHeadTags.replace(entryModuleScript, '') : otherHeadTags).replace(
    /<script type="module"(?![^>]*fetchpriority)/g,
    '<script type="module" fetchpriority="low"',
  )
  const appToState = html.slice(appAt + markers.app.length, stateAt)
  const afterState = html.slice(stateAt + markers.state.length)
  // The end of #root, where the app's markup stops: anything placed after it is left alone by hydration.
  const rootCloseAt = appToState.indexOf('</div>')
  const appToRootEnd = rootCloseAt === -1 ? '' : appToState.slice(0, rootCloseAt + '</div>'.length)
  const rootEndToState = appToState.slice(appToRootEnd.length)
  const withNonce = (text: string, nonce: string | undefined) =>
    text.includes(noncePlaceholderValue) ? text.replaceAll(noncePlaceholderAttribute, nonceAttribute(nonce)) : text

  return {
    headTagsAt: beforeHead.includes(noncePlaceholderValue) ? undefined : Buffer.byteLength(beforeHead),
    open(head, nonce, headTags = '') {
      const description = head.description
        ? `<meta name="description" content="${escapeHtml(head.description)}" />`
        : ''
      const attribute = nonceAttribute(nonce)
      let preloads = ''
      for (const href of head.preloadStyles ?? []) {
        preloads += `<link rel="stylesheet" crossorigin href="${escapeHtml(href)}"${attribute}>`
      }
      let code = ''
      if (loader) {
        const preloadAttribute = head.preloadModules?.length
          ? ` data-preload="${escapeHtml(head.preloadModules.join(' '))}"`
          : ''
        code = `<script${attribute}${entryAttribute}${preloadAttribute}>${loader}</script>`
      } else {
        for (const href of head.preloadModules ?? []) {
          code += `<link rel="modulepreload" crossorigin href="${escapeHtml(href)}" fetchpriority="low"${attribute}>`
        }
      }
      // Render-blocking first (stylesheets, the font), then the entry script (or its loader), then the page's own
      // chunks: no style or font waits behind a script in the browser's queue.
      return (
        withNonce(beforeHead, nonce) +
        headTags +
        `<title>${escapeHtml(head.title)}</title>${description}` +
        withNonce(stylesAndFonts, nonce) +
        preloads +
        withNonce(headRest, nonce) +
        code +
        withNonce(headEnd, nonce)
      )
    },
    close(stateJson, nonce, afterApp = '') {
      return (
        withNonce(appToRootEnd, nonce) +
        afterApp +
        withNonce(rootEndToState, nonce) +
        `<script id="${stateElementId}" type="application/json"${nonceAttribute(nonce)}>${stateJson}</script>` +
        withNonce(afterState, nonce)
      )
    },
  }
}

/**
 * The URLs the entry loader's tag starts, as `open` writes them (`data-entry`, `data-preload`): for tools that read a
 * served document, the bench and the suites.
 */
export function entryLoaderUrls(html: string): { entries: string[]; preloads: string[] } {
  const entries: string[] = []
  const preloads: string[] = []
  const urls = (value: string | undefined) =>
    unescapeHtml(value ?? '')
      .split(' ')
      .filter(Boolean)
  for (const tag of html.match(/<script\b[^>]*\bdata-entry="[^"]*"[^>]*>/g) ?? []) {
    entries.push(...urls(/\bdata-entry="([^"]*)"/.exec(tag)?.[1]))
    preloads.push(...urls(/\bdata-preload="([^"]*)"/.exec(tag)?.[1]))
  }
  return { entries, preloads }
}
