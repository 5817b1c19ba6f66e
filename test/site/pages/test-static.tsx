import { TestNav } from '../test-nav.tsx'

/** A static page without data and without `revalidate`: rendered once per deployment and kept. Test routes only. */
export default function StaticPage() {
  return (
    <article>
      <h1>A static page</h1>
      <TestNav />
      <p className="lead">Rendered once for this deployment.</p>
    </article>
  )
}
