import { decodePageAnswer, deploymentIdHeader, type PageAnswer } from '../../src/common/page-data.ts'

/** What a form's submission through the router came to: where to go next, the page refused, or no answer to use. */
export type Submitted =
  | { redirect: string }
  | { refused: Extract<PageAnswer, { props: unknown }> & { actionData: unknown } }
  | { unusable: string }

/**
 * The form's fields as the browser would send them (with the button that submitted it), urlencoded: what a page's
 * action reads whether the browser or the router sends it. A form with a file cannot go this way (actions take no
 * uploads), so it is left to the browser.
 */
function bodyOf(form: HTMLFormElement, submitter: HTMLElement | null): URLSearchParams | undefined {
  const fields = submitter ? new FormData(form, submitter) : new FormData(form)
  const body = new URLSearchParams()
  for (const [name, value] of fields) {
    if (typeof value !== 'string') return undefined
    body.append(name, value)
  }
  return body
}

/**
 * Sends a form to its page's action through the page data URL (`dataUrl`), as the browser would send it to the page
 * itself: a `{ redirect }` to follow, a refused submission (422 or 400: the page's data with `actionData`), or, for
 * anything else (another deployment answered, a 5xx, a network failure), a reason, and the browser sends it instead.
 */
export async function submitForm(
  form: HTMLFormElement,
  submitter: HTMLElement | null,
  dataUrl: string,
  deploymentId: string,
): Promise<Submitted> {
  const body = bodyOf(form, submitter)
  if (!body) return { unusable: 'a file field' }
  let response: Response
  try {
    response = await fetch(dataUrl, {
      method: 'POST',
      body,
      headers: { [deploymentIdHeader]: deploymentId },
      credentials: 'same-origin',
    })
  } catch (error) {
    return { unusable: String(error) }
  }
  if (response.headers.get(deploymentIdHeader) !== deploymentId) return { unusable: 'another deployment answered' }
  const json: unknown = await response.json().catch(() => undefined)
  if (response.status === 400 || response.status === 422) {
    const answer = decodePageAnswer(200, json)
    const actionData = (json as { actionData?: unknown } | undefined)?.actionData
    if (answer && 'props' in answer) return { refused: { ...answer, actionData } }
  }
  const answer = decodePageAnswer(response.status, json)
  if (answer && 'redirect' in answer) return { redirect: answer.redirect.destination }
  return { unusable: `status ${response.status}` }
}
