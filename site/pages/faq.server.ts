import { defineLoader } from '../../client/page.ts'
import { contentTags } from '../../src/content/content-source.ts'

export const load = defineLoader(async ({ content }) => ({ props: await content.faq(), tags: [contentTags.faq] }))
