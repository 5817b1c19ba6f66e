/**
 * The tests' own content: test/fixtures/content/ (guides and FAQ entries of a made-up sailing club), the CONTENT_DIR
 * every test's server reads unless the test names another (test/helpers/app.ts, test/e2e/harness.ts,
 * test/reliability/server-process.ts). The server's mechanics are tested on it, so replacing the example's content
 * in content/ (docs/your-site.md) changes no test outside test/example/. Read with the server's own reader, so a test
 * follows the Markdown files as they are.
 */
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ContentSource, type GuideEntry } from '../../src/content/content-source.ts'
import type { FaqData } from '../../site/data-types.ts'

export const fixtureContentDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'content')

export const siteContent = new ContentSource(fixtureContentDir)

/** Every guide, in the order the site lists them. */
export const guides: readonly GuideEntry[] = await siteContent.guides()

export const faq: FaqData = await siteContent.faq()
