import { useId, useState } from 'react'
import type { PageComponentProps } from '../page-modules.ts'
import type { FaqData } from '../../site/data-types.ts'

export default function FaqPage({ data }: PageComponentProps<FaqData>) {
  const [query, setQuery] = useState('')
  const inputId = useId()
  const needle = query.trim().toLowerCase()
  const shown = needle
    ? data.entries.filter((entry) => `${entry.question} ${entry.answer}`.toLowerCase().includes(needle))
    : data.entries
  return (
    <article className="faq">
      <h1>Frequently asked questions</h1>
      <p>
        <label htmlFor={inputId}>Filter questions</label>{' '}
        <input id={inputId} type="search" value={query} onChange={(event) => setQuery(event.target.value)} />
      </p>
      <p className="faq-count" aria-live="polite">
        {shown.length} of {data.entries.length} questions
      </p>
      <dl>
        {shown.map((entry) => (
          <div key={entry.question} className="faq-entry">
            <dt>{entry.question}</dt>
            <dd>{entry.answer}</dd>
          </div>
        ))}
      </dl>
    </article>
  )
}
