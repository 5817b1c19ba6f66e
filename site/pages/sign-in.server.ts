import { defineAction, defineRequestLoader } from '../../client/page.ts'
import { createAccount, passwordMatches } from '../data/accounts.ts'
import { field, sitePathOr } from '../data/form-fields.ts'

/** Names are 3 to 32 lowercase letters, digits, `-` or `_`; passwords 10 to 200 characters. */
const namePattern = /^[a-z0-9_-]{3,32}$/
const password = { min: 10, max: 200 }

// Signed in already: on to where the visitor was going.
export const load = defineRequestLoader(async ({ request, query }) => {
  const next = sitePathOr(query.next, '/account')
  if ((await request.session.userId()) !== undefined) return { redirect: { destination: next, permanent: false } }
  return { props: { next } }
})

interface SignInErrors {
  name?: string
  password?: string
  form?: string
}

/**
 * Signs in, or makes the account first (the "Create account" button). Ten tries a minute per client: a guesser gets
 * 429 with `Retry-After` (counted across the fleet with REDIS_URL).
 */
export const action = defineAction(
  async ({ form, request, query }) => {
    const values = { name: field(form, 'name').toLowerCase() }
    const secret = field(form, 'password', { raw: true })
    const errors: SignInErrors = {}
    if (!namePattern.test(values.name)) errors.name = 'A name is 3 to 32 letters, digits, - or _.'
    if (secret.length < password.min || secret.length > password.max) {
      errors.password = `A password is ${password.min} to ${password.max} characters.`
    }
    if (errors.name || errors.password) return { invalid: { errors, values } }
    if (field(form, 'intent') === 'create') {
      if (!(await createAccount(values.name, secret))) {
        return { invalid: { errors: { name: 'That name is taken.' } as SignInErrors, values } }
      }
    } else if (!(await passwordMatches(values.name, secret))) {
      return { invalid: { errors: { form: 'That name and password do not match.' } as SignInErrors, values } }
    }
    await request.session.signIn(values.name)
    return { redirect: { destination: sitePathOr(query.next ?? form.next, '/account') } }
  },
  { rateLimit: { max: 10, windowMs: 60_000 } },
)
