import { defineLoader } from '../../../client/page.ts'
import { contentTags } from '../../../src/content/content-source.ts'
import type { TestGuidesData } from './test-guides.tsx'

export const load = defineLoader<TestGuidesData>(async ({ content }) => ({
  props: { guides: [...(await content.guideSummaries())] },
  tags: [contentTags.guides],
}))
