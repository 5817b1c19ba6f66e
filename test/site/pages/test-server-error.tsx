import { definePage, type PageComponentProps } from '../../../client/page.ts'
import { testTitled } from '../test-title.ts'
import type * as server from './test-server-error.server.ts'

export const page = definePage<typeof server>({
  path: '/__test/server-error',
  kind: 'dynamic',
  head: () => ({ title: testTitled('Server error') }),
})
/** Never rendered: its loader (test-server-error.server.ts) throws, so the visitor gets the 500 page. Test routes only. */
export default function ServerErrorPage() {
  return <h1>This page's loader always fails</h1>
}
