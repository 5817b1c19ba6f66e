import { defineLoader } from '../../../client/page.ts'
import type { TestLinksData } from './test-links.tsx'

// 20 distinct static pages to link to: every guide's test page, then slugs no guide has (a not-found each); or the
// paths `to` lists (comma-separated), in a grid.
export const load = defineLoader<TestLinksData>(async ({ query, content }) => {
  if (typeof query.to === 'string') return { props: { layout: 'grid', hrefs: query.to.split(',') } }
  const slugs = (await content.guideSummaries()).map((guide) => guide.slug)
  for (let index = 1; slugs.length < 20; index++) slugs.push(`missing-${index}`)
  const hrefs = slugs.map((slug) => `/__test/guides/${slug}`)
  return { props: { layout: query.layout === 'grid' ? 'grid' : 'spaced', hrefs } }
})
