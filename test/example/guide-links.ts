/**
 * The example's guide links as its home and guides pages show them (site/components/guide-list.tsx): the example's
 * markup, read by the example's own tests only.
 */
import type { Page } from 'playwright-core'
import type { Session } from '../e2e/harness.ts'

export interface GuideLink {
  href: string
  text: string
  summary: string
}

/** The guide links of the page shown (home and guides pages): href, title and summary of each. */
export async function guideLinks(page: Page): Promise<GuideLink[]> {
  return page.locator('main .guide-list li').evaluateAll((items) =>
    items.map((item) => {
      const link = item.querySelector('a')
      return {
        href: link?.getAttribute('href') ?? '',
        text: link?.textContent?.trim() ?? '',
        summary: item.querySelector('p')?.textContent?.trim() ?? '',
      }
    }),
  )
}

/** The first guide linked from the home page (the brief: "take a slug from the home page's links"). */
export async function firstGuide(session: Session): Promise<GuideLink> {
  await session.goto('/')
  const [first] = await guideLinks(session.page)
  if (!first?.href.startsWith('/guides/')) throw new Error('the home page links no guide')
  return first
}
