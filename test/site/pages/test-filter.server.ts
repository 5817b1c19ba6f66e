import { defineLoader } from '../../../client/page.ts'
import { contentTags } from '../../../src/content/content-source.ts'
import { textOf } from '../../../src/content/hast-text.ts'
import type { FilterData } from './test-filter.tsx'

export const load = defineLoader<FilterData>(async ({ content }) => {
  const { entries: read } = await content.faq()
  const entries = read.map(({ question, answer }) => ({ question, answer: textOf(answer) }))
  return { props: { entries }, tags: [contentTags.faq] }
})
