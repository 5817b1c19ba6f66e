import { definePage, type PageProps } from '../../client/page.ts'
import { titled } from '../site.ts'
import type * as server from './sign-in.server.ts'

export const page = definePage<typeof server>({
  path: '/sign-in',
  kind: 'dynamic',
  head: () => ({ title: titled('Sign in'), description: 'Sign in to leave feedback on the guides.' }),
})

export default function SignInPage({ data, actionData }: PageProps<typeof server>) {
  const errors = actionData?.errors ?? {}
  const name = actionData?.values.name ?? ''
  return (
    <article className="sign-in">
      <h1>Sign in</h1>
      <p>Sign in to leave feedback on a guide; your account page lists what you wrote.</p>
      {errors.form ? (
        <p role="alert" className="form-error">
          {errors.form}
        </p>
      ) : null}
      {/* A plain form (docs/client-bundle.md, "Form on two pages"): signing in loads the site again as the visitor now
          is. */}
      <form method="post" aria-label="Sign in">
        <input type="hidden" name="next" value={data.next} />
        <label>
          Name{' '}
          <input
            name="name"
            autoComplete="username"
            defaultValue={name}
            aria-invalid={errors.name ? true : undefined}
          />
        </label>
        {errors.name ? <p className="field-error">{errors.name}</p> : null}
        <label>
          Password{' '}
          <input
            name="password"
            type="password"
            autoComplete="current-password"
            aria-invalid={errors.password ? true : undefined}
          />
        </label>
        {errors.password ? <p className="field-error">{errors.password}</p> : null}
        <button type="submit" name="intent" value="sign-in">
          Sign in
        </button>{' '}
        <button type="submit" name="intent" value="create">
          Create account
        </button>
      </form>
    </article>
  )
}
