import { defineAction, defineLoader } from '../../../client/page.ts'

// What the page shows after a submission went through: `?sent=<name>` of the redirect.
export const load = defineLoader(({ query }) => ({
  props: { sent: typeof query.sent === 'string' ? query.sent : null, loadedAt: Date.now() },
}))

/** One field's value as a form sends it: the first of several, trimmed; '' when absent. */
function field(value: string | readonly string[] | undefined): string {
  return (typeof value === 'string' ? value : (value?.[0] ?? '')).trim()
}

// A name is required, an email needs an @: refused with the errors by field and the values sent, else on to the page
// with `?sent=`.
export const action = defineAction(({ form }) => {
  const values = { name: field(form.name), email: field(form.email) }
  const errors: { name?: string; email?: string } = {}
  if (values.name === '') errors.name = 'Say who you are.'
  if (!values.email.includes('@')) errors.email = 'An email address has an @.'
  if (errors.name || errors.email) return { invalid: { errors, values } }
  return { redirect: { destination: `/__test/form?sent=${encodeURIComponent(values.name)}` } }
})
