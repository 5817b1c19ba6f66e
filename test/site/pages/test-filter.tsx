import { definePage, type PageComponentProps } from '../../../client/page.ts'
import { testTitled } from '../test-title.ts'
import type * as server from './test-filter.server.ts'
import { useId, useState } from 'react'
import { TestNav } from '../test-nav.tsx'

export const page = definePage<typeof server>({
  path: '/__test/filter',
  kind: 'static',
  revalidate: 60,
  head: () => ({ title: testTitled('Filter') }),
})

export interface FilterData {
  /** The FAQ entries of CONTENT_DIR, each answer as plain text. */
  entries: Array<{ question: string; answer: string }>
}

/**
 * A list the visitor narrows by typing (case ignored), with a count that follows: state in the hydrated page, nothing
 * asked of the server. Test routes only.
 */
export default function FilterPage({ data }: PageComponentProps<FilterData>) {
  const [query, setQuery] = useState('')
  const inputId = useId()
  const needle = query.trim().toLowerCase()
  const shown = data.entries.filter((entry) => `${entry.question} ${entry.answer}`.toLowerCase().includes(needle))
  return (
    <article className="filter">
      <h1>Filter</h1>
      <TestNav />
      <p>
        <label htmlFor={inputId}>Filter entries</label>{' '}
        <input id={inputId} type="search" value={query} onChange={(event) => setQuery(event.target.value)} />
      </p>
      <p className="filter-count" aria-live="polite">
        {shown.length} of {data.entries.length} entries
      </p>
      <dl>
        {shown.map((entry) => (
          <div key={entry.question} className="filter-entry">
            <dt>{entry.question}</dt>
            <dd>{entry.answer}</dd>
          </div>
        ))}
      </dl>
    </article>
  )
}
