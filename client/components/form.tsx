import type { FormHTMLAttributes } from 'react'
import { useRouter } from '../router/router-context.tsx'

export type FormProps = Omit<FormHTMLAttributes<HTMLFormElement>, 'method'>

type SubmitEvent = Parameters<NonNullable<FormProps['onSubmit']>>[0]

/**
 * A page's form (docs/forms.md): a real `<form method="post">` to the page's own path, so it works without JavaScript
 * and before hydration (the server answers 303, or the page again with its errors). With the router, a submission goes
 * to the page's action through its data URL and the page follows the answer without a full load.
 */
export function Form({ onSubmit, children, ...form }: FormProps) {
  const router = useRouter()
  function submitThroughRouter(event: SubmitEvent) {
    onSubmit?.(event)
    if (!router || event.defaultPrevented) return
    const submitter = (event.nativeEvent as { submitter?: HTMLElement | null }).submitter ?? null
    event.preventDefault()
    void router.submit(event.currentTarget, submitter)
  }
  return (
    <form {...form} method="post" onSubmit={submitThroughRouter}>
      {children}
    </form>
  )
}
