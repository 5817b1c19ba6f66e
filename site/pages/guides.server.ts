import { defineLoader, type LastModified } from '../../client/page.ts'
import { contentTags } from '../../src/content/content-source.ts'

export const load = defineLoader(async ({ content }) => ({
  props: (await content.guideListPage(1))!,
  tags: [contentTags.guides],
}))

export const lastModified: LastModified = (_params, { content }) => content.guideLastModified()
