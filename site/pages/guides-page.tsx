import { definePage } from '../../client/page.ts'
import { contentRevalidateS, titled } from '../site.ts'
import type * as server from './guides-page.server.ts'

// The list's other pages: two segments, so a guide's slug (one) never matches here, nor this a guide.
export const page = definePage<typeof server>({
  path: '/guides/page/:page',
  kind: 'static',
  revalidate: contentRevalidateS,
  head: (data) => ({ title: titled(`Guides, page ${data.page} of ${data.pages}`), description: 'More guides.' }),
})

// The same list as `/guides`, another page of it.
export { default } from './guides.tsx'
