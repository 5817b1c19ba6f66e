import type { FormFields } from '../../client/page.ts'

/** One field's value as a form sends it: the first of several, trimmed unless `raw` (a password); '' when absent. */
export function field(form: FormFields, name: string, { raw = false } = {}): string {
  const value = form[name]
  const first = typeof value === 'string' ? value : (value?.[0] ?? '')
  return raw ? first : first.trim()
}

/**
 * Where to go after signing in: a path of this site (`/account`, `/guides/x`), never another origin (`//evil.example`
 * or `https://...` would make the sign-in page an open redirect).
 */
export function sitePathOr(candidate: unknown, fallback: string): string {
  return typeof candidate === 'string' && /^\/(?![/\\])/.test(candidate) ? candidate : fallback
}
