/**
 * The example site's content as the tests expect to see it served: read from CONTENT_DIR's default (content/) with
 * the server's own reader, so a test follows the Markdown files as they are.
 */
import { loadConfig } from '../../config/env.ts'
import { ContentSource, type GuideEntry } from '../../src/content/content-source.ts'
import type { FaqData } from '../../site/data-types.ts'

export const siteContent = new ContentSource(loadConfig({}).contentDir)

/** Every guide, in the order the site lists them. */
export const guides: readonly GuideEntry[] = await siteContent.guides()

export const faq: FaqData = await siteContent.faq()
