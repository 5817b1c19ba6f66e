import { definePage, type PageComponentProps } from '../../../client/page.ts'
import { testTitled } from '../test-title.ts'
import type * as server from './test-links.server.ts'
import { Link } from '../../../client/components/link.tsx'
import { Filler } from '../filler.tsx'

export const page = definePage<typeof server>({
  path: '/__test/links',
  kind: 'dynamic',
  head: () => ({ title: testTitled('Links') }),
})

export interface TestLinksData {
  /** `grid`: every link in view at once. `spaced`: two links far below the fold, one further than the other. */
  layout: 'grid' | 'spaced'
  hrefs: string[]
}

/** Links laid out for the router's prefetch tests. Test routes only. */
export default function TestLinksPage({ data }: PageComponentProps<TestLinksData>) {
  if (data.layout === 'grid') {
    return (
      <article>
        <h1>Links</h1>
        <ul className="test-links">
          {data.hrefs.map((href) => (
            <li key={href}>
              <Link href={href}>{href}</Link>
            </li>
          ))}
        </ul>
      </article>
    )
  }
  return (
    <article>
      <h1>Links far below</h1>
      <Filler lines={80} />
      <p>
        <Link id="near-link" href={data.hrefs[0]!}>
          First
        </Link>
      </p>
      <Filler lines={30} />
      <p>
        <Link id="far-link" href={data.hrefs[1]!}>
          Second
        </Link>
      </p>
      <Filler lines={80} />
    </article>
  )
}
