/** The site's name and the freshness of its content pages: what the example's pages and Courier's error pages share. */
export const siteName = 'Courier'

export function titled(title: string): string {
  return `${title} · ${siteName}`
}

/** The freshness of the pages that show content (docs/content.md), in seconds: fresh within a minute of an edit even
 * without an on-demand revalidation. */
export const contentRevalidateS = 60
