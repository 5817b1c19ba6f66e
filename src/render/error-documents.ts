import { statusTitle } from '../../config/status-titles.ts'
import { applicationErrorMessage, digestLine, lateErrorElementId } from '../common/error-messages.ts'
import { siteName } from '../../site/site.ts'
import { escapeHtml, type DocumentHead } from './template.ts'

/**
 * The head of an error page: `404: This page could not be found`, and a description that says the same in a sentence
 * (what a search result or a shared link shows), never anything of the error itself.
 */
export function errorDocumentHead(statusCode: number): DocumentHead {
  const title = `${statusCode}: ${statusTitle(statusCode)}`
  return { title, description: `${siteName} answered ${title}.` }
}

/** Last resort when the error page itself cannot render: plain HTML, same title, nothing from the error. */
export function plainErrorDocument(statusCode: number, digest?: string): string {
  const { title } = errorDocumentHead(statusCode)
  const digestParagraph = digest ? `<p>${escapeHtml(digestLine(digest))}</p>` : ''
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
    `<body><h1>${escapeHtml(title)}</h1>${digestParagraph}</body></html>`
  )
}

/**
 * The application error screen (server-side variant), streamed after #root when a Suspense boundary failed once the
 * shell had been sent: the status cannot change any more, but the visitor still sees that the page failed, and
 * with which digest, without JavaScript too. Script-free, outside what React hydrates.
 */
export function lateErrorScreen(host: string, digest: string): string {
  return (
    `<section id="${lateErrorElementId}" class="error-screen application-error" role="alert"` +
    ` data-digest="${escapeHtml(digest)}">` +
    `<h1 class="application-error-message">${escapeHtml(applicationErrorMessage('server', host))}</h1>` +
    `<p class="application-error-digest">${escapeHtml(digestLine(digest))}</p></section>`
  )
}
