import type { FormFields } from '../common/page-types.ts'
import { errors } from '../errors.ts'

/** The media types a page's action reads (what a browser's `<form method="post">` sends without files). */
export const formMediaTypes = ['application/x-www-form-urlencoded', 'multipart/form-data'] as const

/** Adds `value` under `name`: a name sent twice (checkboxes, a multiple select) gives all its values, in order. */
function add(fields: Record<string, string | string[]>, name: string, value: string): void {
  const had = fields[name]
  if (had === undefined) fields[name] = value
  else if (typeof had === 'string') fields[name] = [had, value]
  else had.push(value)
}

/**
 * A form's fields from its body, read by the platform's own parsers (URLSearchParams, and the Fetch API's `formData()`
 * for multipart, as a browser sends it): a file field is refused (415: uploads are not taken), a body that is not
 * what its type says is a 400. The body is already bounded by the server's body limit.
 */
export async function readFormFields(contentType: string, body: Buffer): Promise<FormFields> {
  const fields: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>
  if (contentType.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    for (const [name, value] of new URLSearchParams(body.toString('utf8'))) add(fields, name, value)
    return fields
  }
  let form: FormData
  try {
    form = await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData()
  } catch (error) {
    throw new errors.FormMalformed(error instanceof Error ? error.message : String(error))
  }
  for (const [name, value] of form) {
    if (typeof value !== 'string') throw new errors.FormMediaType()
    add(fields, name, value)
  }
  return fields
}
