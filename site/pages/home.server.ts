import { defineLoader, type LastModified } from '../../client/page.ts'
import { contentTags } from '../../src/content/content-source.ts'
import { siteImages } from '../images.ts'

// The list's first page, from the index of the guides: no file is read, and its size does not grow with their number.
export const load = defineLoader(async ({ content }) => {
  const guides = await content.guideListPage(1)
  return { props: { guides: guides!, hero: siteImages[0]! }, tags: [contentTags.guides] }
})

export const lastModified: LastModified = (_params, { content }) => content.guideLastModified()
