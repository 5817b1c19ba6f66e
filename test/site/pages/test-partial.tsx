import { definePage, type PageComponentProps } from '../../../client/page.ts'
import { testTitled } from '../test-title.ts'
import type * as server from './test-partial.server.ts'
import { RequestTime } from '../../../client/components/request-time.tsx'
import type { PartialData } from '../../../src/common/page-types.ts'

export const page = definePage<typeof server>({
  path: '/__test/partial',
  kind: 'dynamic',
  prerender: 'partial',
  head: () => ({ title: testTitled('Partial') }),
})

export interface PartialKept {
  /** Made once per kept version: the same in every shell of that version. */
  keptToken: string
}

export interface PartialLive {
  /** The request's own `?token=`: shows which request a hole was resumed for. */
  requestToken: string
}

export type PartialPageData = PartialData<PartialKept, PartialLive>

/** A partly prerendered page: a kept shell with one hole of request-time data. Test routes only. */
export default function PartialPage({ data }: PageComponentProps<PartialPageData>) {
  return (
    <article>
      <h1 id="partial-title">Partly prerendered</h1>
      <p id="partial-kept">Kept: {data.kept.keptToken}</p>
      <RequestTime data={data.live} fallback={<p id="partial-fallback">Waiting for this request…</p>}>
        {(live) => <p id="partial-live">For this request: {live.requestToken}</p>}
      </RequestTime>
    </article>
  )
}
