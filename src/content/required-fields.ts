import type { GuideSummary } from '../../site/data-types.ts'
import { errors } from '../errors.ts'

/** A content file's front matter, as read (src/content/front-matter.ts). */
type FrontMatter = Readonly<Record<string, unknown>>

/** Front matter order, then file name: the order a folder's files are listed in. */
export function byOrder(a: { order: number; name: string }, b: { order: number; name: string }): number {
  return a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
}

/** The file's place in its list (front matter `order`); bad content without one. */
export function requiredOrder(frontMatter: FrontMatter, file: string): number {
  const order = frontMatter.order
  if (typeof order !== 'number' || !Number.isFinite(order)) {
    throw new errors.ContentInvalid(file, 'front matter field order must be a number (the place in the list)')
  }
  return order
}

/** A guide's slug with its front matter's title and summary, both required. */
export function guideSummary(slug: string, frontMatter: FrontMatter, file: string): GuideSummary {
  return { slug, title: requiredText(frontMatter, 'title', file), summary: requiredText(frontMatter, 'summary', file) }
}

/** A front matter field that must be text, trimmed; bad content when it is missing, empty or not text. */
export function requiredText(frontMatter: FrontMatter, field: string, file: string): string {
  const value = frontMatter[field]
  if (typeof value !== 'string' || value.trim() === '') {
    throw new errors.ContentInvalid(file, `front matter field ${field} is missing (or not text)`)
  }
  return value.trim()
}
