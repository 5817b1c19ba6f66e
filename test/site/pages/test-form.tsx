import { definePage, type PageProps } from '../../../client/page.ts'
import { Form } from '../../../client/components/form.tsx'
import { testTitled } from '../test-title.ts'
import type * as server from './test-form.server.ts'
import { TestNav } from '../test-nav.tsx'

export const page = definePage<typeof server>({
  path: '/__test/form',
  kind: 'dynamic',
  head: () => ({ title: testTitled('Form') }),
})

/** A page with a form and its action: errors next to their fields with the values kept, or the page after it. */
export default function FormPage({ data, actionData }: PageProps<typeof server>) {
  const errors = actionData?.errors ?? {}
  const values = actionData?.values ?? { name: '', email: '' }
  return (
    <article>
      <h1>A form</h1>
      <TestNav />
      {data.sent ? <p data-testid="sent">Thank you, {data.sent}.</p> : null}
      <p data-testid="loaded-at">{data.loadedAt}</p>
      <Form aria-label="Contact">
        <label>
          Name <input name="name" defaultValue={values.name} aria-invalid={errors.name ? true : undefined} />
        </label>
        {errors.name ? <p data-testid="name-error">{errors.name}</p> : null}
        <label>
          Email <input name="email" defaultValue={values.email} aria-invalid={errors.email ? true : undefined} />
        </label>
        {errors.email ? <p data-testid="email-error">{errors.email}</p> : null}
        <button type="submit">Send</button>
      </Form>
    </article>
  )
}
