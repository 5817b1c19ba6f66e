import { defineLoader } from '../../../client/page.ts'

export const load = defineLoader(() => {
  throw new Error('a page loader failed on purpose (test route)')
})
