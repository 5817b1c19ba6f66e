import { defineAction } from '../../../client/page.ts'

// An action with a rate limit of three submissions a minute per client, as a sign-in guards its guesses.
export const action = defineAction(
  ({ form }) => (form.secret === 'open sesame' ? { redirect: { destination: '/' } } : { invalid: { wrong: true } }),
  { rateLimit: { max: 3, windowMs: 60_000 } },
)
