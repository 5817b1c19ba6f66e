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

/** Front matter `tags`, if any: a list of texts. */
export function optionalTags(frontMatter: FrontMatter, file: string): readonly string[] {
  const tags = frontMatter.tags
  if (tags === undefined) return []
  if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === 'string')) {
    throw new errors.ContentInvalid(file, 'front matter field tags must be a list of texts')
  }
  return Object.freeze(tags.map((tag: string) => tag.trim()))
}

/** A calendar date, or a date and time, as YAML and ISO 8601 write them. */
const isoDate = /^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/

/**
 * When the file last changed, ISO 8601: its front matter's `updated`, else its `date` (an author's word, the same on
 * every instance), else the modification time of the version read. A date that is not one is bad content.
 */
export function lastModifiedOf(frontMatter: FrontMatter, file: string, modifiedMs: number): string {
  for (const field of ['updated', 'date']) {
    const value = frontMatter[field]
    if (value === undefined) continue
    const text = value instanceof Date ? value.toISOString() : typeof value === 'string' ? value.trim() : ''
    if (!isoDate.test(text) || Number.isNaN(Date.parse(text))) {
      throw new errors.ContentInvalid(file, `front matter field ${field} must be a date (2026-03-01)`)
    }
    return text.length === 10 ? text : new Date(text).toISOString()
  }
  return new Date(modifiedMs).toISOString()
}
