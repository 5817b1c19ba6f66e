import { defineLoader, type StaticParams } from '../../../client/page.ts'
import { contentTags } from '../../../src/content/content-source.ts'
import type { TestGuideData } from './test-guide.tsx'

// The guide, else a not-found; its neighbours for the pager (their titles are on it: tagged with every guide).
export const load = defineLoader<TestGuideData>(async ({ params, content }) => {
  const guide = await content.guide(params.slug!)
  if (!guide) return { notFound: true }
  const guides = await content.guideSummaries()
  const index = guides.findIndex((summary) => summary.slug === guide.slug)
  return {
    props: { guide, previous: guides[index - 1] ?? null, next: guides[index + 1] ?? null },
    tags: [contentTags.guides, contentTags.guide(guide.slug)],
  }
})

export const staticParams: StaticParams = async ({ content }) =>
  (await content.guideSummaries()).map((guide) => ({ slug: guide.slug }))
