import { defineLoader, type LastModified, type StaticParams } from '../../client/page.ts'
import { contentTags } from '../../src/content/content-source.ts'

export const load = defineLoader(async ({ params, content }) => {
  // This guide's own file (a made-up URL costs one read), then its neighbours for the pager from the index: no other
  // guide's file is read.
  const guide = await content.guide(params.slug!)
  if (!guide) return { notFound: true }
  const { slug, title, summary, sections } = guide
  return {
    props: { guide: { slug, title, summary, sections }, ...(await content.guideNeighbours(slug)) },
    // Its neighbours' titles are in its pager: a change to any guide may change it.
    tags: [contentTags.guides, contentTags.guide(slug)],
  }
})

export const staticParams: StaticParams = async ({ content }) =>
  (await content.guideSummaries()).map((guide) => ({ slug: guide.slug }))

export const lastModified: LastModified = (params, { content }) => content.guideLastModified(params.slug)
