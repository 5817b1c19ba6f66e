import { PageHeadTags } from '../components/page-head'
import site from '../site'

/** Courier's 404 (client/components/error-screen.tsx): `404: Not Found`, prerendered by Next at build time. */
export default function NotFoundPage() {
  const { head, statusCode, statusTitle } = site.notFound
  return (
    <section className="error-screen" aria-labelledby="error-title">
      <PageHeadTags head={head} />
      <h1 id="error-title">
        <span className="error-status">{statusCode}</span>
        <span className="error-title">{statusTitle}</span>
      </h1>
      <p>
        <a href="/">Go to the home page</a>
      </p>
    </section>
  )
}
