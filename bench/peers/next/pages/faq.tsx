import type { GetStaticProps } from 'next'
import { useId, useState } from 'react'
import { Markdown, textOf } from '../components/markdown'
import { PageHeadTags } from '../components/page-head'
import { runContentLoader } from '../content'
import type { FaqData, PageHead } from '../site'

interface Props {
  data: FaqData
  head: PageHead
}

export const getStaticProps: GetStaticProps<Props> = () => runContentLoader<FaqData>('faq', '/faq')

/** Courier's FAQ page (site/pages/faq.tsx), the same markup and filter. */
export default function FaqPage({ data, head }: Props) {
  const [query, setQuery] = useState('')
  const inputId = useId()
  const needle = query.trim().toLowerCase()
  const shown = needle
    ? data.entries.filter((entry) => `${entry.question} ${textOf(entry.answer)}`.toLowerCase().includes(needle))
    : data.entries
  return (
    <article className="faq">
      <PageHeadTags head={head} />
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
          <div key={entry.anchor} className="faq-entry">
            <dt id={entry.anchor}>{entry.question}</dt>
            <dd>
              <Markdown content={entry.answer} />
            </dd>
          </div>
        ))}
      </dl>
    </article>
  )
}
