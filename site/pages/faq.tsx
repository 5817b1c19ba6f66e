import { useId, useState } from 'react'
import { definePage, type PageProps } from '../../client/page.ts'
import { titled, contentRevalidateS } from '../site.ts'
import type * as server from './faq.server.ts'
import type { FaqData, FaqEntry, MarkdownContent } from '../data-types.ts'
import { Markdown } from '../../client/components/markdown.tsx'

export const page = definePage<typeof server>({
  path: '/faq',
  kind: 'static',
  revalidate: contentRevalidateS,
  head: () => ({ title: titled('FAQ'), description: 'Questions operators and developers ask about Courier.' }),
})

/** The text of an answer, as the filter searches it. */
function textOf(node: MarkdownContent | MarkdownContent['children'][number]): string {
  if (node.type === 'text') return node.value
  return 'children' in node ? node.children.map(textOf).join('') : ''
}

function searchText(entry: FaqEntry): string {
  return `${entry.question} ${textOf(entry.answer)}`.toLowerCase()
}

export default function FaqPage({ data }: PageProps<typeof server>) {
  const [query, setQuery] = useState('')
  const inputId = useId()
  const needle = query.trim().toLowerCase()
  const shown = needle ? data.entries.filter((entry) => searchText(entry).includes(needle)) : data.entries
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
