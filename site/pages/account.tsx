import { definePage, type PageProps } from '../../client/page.ts'
import { Link } from '../../client/components/link.tsx'
import { titled } from '../site.ts'
import type * as server from './account.server.ts'

export const page = definePage<typeof server>({
  path: '/account',
  kind: 'dynamic',
  head: () => ({ title: titled('Your account'), description: 'Your feedback on the guides.' }),
})

export default function AccountPage({ data }: PageProps<typeof server>) {
  return (
    <article className="account">
      <h1>Signed in as {data.name}</h1>
      <h2>Your feedback</h2>
      {data.feedback.length === 0 ? (
        <p>
          None yet: every <Link href="/guides">guide</Link> ends with a form for it.
        </p>
      ) : (
        <ul className="feedback-list">
          {data.feedback.map((item) => (
            <li key={item.id}>
              <Link href={`/guides/${item.guide}`}>{item.guide}</Link>: {item.body}{' '}
              <time dateTime={item.createdAt}>{item.createdAt.slice(0, 10)}</time>
            </li>
          ))}
        </ul>
      )}
      {/* A plain form: signing out loads the whole site again as the visitor now is. */}
      <form method="post" aria-label="Sign out">
        <button type="submit">Sign out</button>
      </form>
    </article>
  )
}
