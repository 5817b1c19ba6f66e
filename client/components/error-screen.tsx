/** The generic error page: `<status>: <title>`, as the spec's status-title table gives it. */
export function ErrorScreen({ statusCode, title }: { statusCode: number; title: string }) {
  return (
    <section className="error-screen" aria-labelledby="error-title">
      <h1 id="error-title">
        <span className="error-status">{statusCode}</span>
        <span className="error-title">{title}</span>
      </h1>
      <p>
        <a href="/">Go to the home page</a>
      </p>
    </section>
  )
}
