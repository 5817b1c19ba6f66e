/**
 * The tests' own content: test/fixtures/content/ (guides and FAQ entries of a made-up sailing club), the CONTENT_DIR
 * every test's server reads unless the test names another (test/helpers/app.ts, test/e2e/harness.ts,
 * test/reliability/server-process.ts). The server's mechanics are tested on it, so replacing the example's content
 * in content/ (docs/your-site.md) changes no test outside test/example/. Read with the server's own reader, so a test
 * follows the Markdown files as they are.
 */
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import { ContentSource, type GuideEntry } from '../../src/content/content-source.ts'
import type { FaqData } from '../../site/data-types.ts'

export const fixtureContentDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'content')

export const siteContent = new ContentSource(fixtureContentDir)

/** Every guide, in the order the site lists them. */
export const guides: readonly GuideEntry[] = await siteContent.guides()

export const faq: FaqData = await siteContent.faq()

/**
 * A CONTENT_DIR of the test's own: the tests' content plus `extra` generated guides, for a test that needs the
 * answers made from the content (the sitemap, the guide lists) well over a size, whatever pages the site has.
 * Removed when the test ends.
 */
export async function contentWithMoreGuides(t: Test, extra: number): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'courier-more-guides-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await cp(fixtureContentDir, dir, { recursive: true })
  for (let index = 1; index <= extra; index++) {
    await writeFile(
      path.join(dir, 'guides', `generated-guide-${index}.md`),
      `---\ntitle: "Generated guide ${index}"\nsummary: "One of ${extra} guides a test added."\norder: ${1000 + index}\n---\n\n## Its section\n\nText of guide ${index}.\n`,
    )
  }
  return dir
}
