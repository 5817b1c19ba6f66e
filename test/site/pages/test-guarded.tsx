import { definePage, type PageProps } from '../../../client/page.ts'
import { testTitled } from '../test-title.ts'
import type * as server from './test-guarded.server.ts'

export const page = definePage<typeof server>({
  path: '/__test/guarded',
  kind: 'dynamic',
  head: () => ({ title: testTitled('Guarded form') }),
})

/** A form whose action has a rate limit (a plain one: the forms journey's page is the one with `Form`). */
export default function GuardedPage({ actionData }: PageProps<typeof server>) {
  return (
    <form method="post" aria-label="Guarded">
      {actionData?.wrong ? <p data-testid="wrong">Wrong.</p> : null}
      <input name="secret" type="password" />
      <button type="submit">Try</button>
    </form>
  )
}
