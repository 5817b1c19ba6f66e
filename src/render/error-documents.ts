import { statusTitle } from '../../config/status-titles.ts'
import { applicationErrorMessage, digestLine, lateErrorElementId } from '../../site/error-messages.ts'
import { escapeHtml } from './template.ts'

/** Last resort when the error page itself cannot render: plain HTML, same title, nothing from the error. */
export function plainErrorDocument(statusCode: number, digest?: string): string {
  const title = `${statusCode}: ${statusTitle(statusCode)}`
  const digestParagraph = digest ? `<p>${escapeHtml(digestLine(digest))}</p>` : ''
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${digestParagraph}</body></html>`
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
