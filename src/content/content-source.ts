import { readdir, readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import type { ElementContent, Root, RootContent } from 'hast'
import { contentLayout } from '../../config/content.ts'
import type { FaqData, Guide, GuideSummary } from '../../site/data-types.ts'
import { caches } from '../../config/caches.ts'
import { BoundedCache } from '../bounded-cache.ts'
import { errors } from '../errors.ts'
import { parseFrontMatter, parseMarkdown, textOf, type MarkdownFile } from './markdown.ts'

/** The tags content pages give their answers (docs/content.md): `POST /api/revalidate` names them. */
export const contentTags = Object.freeze({
  /** Every page that shows a guide or the list of guides. */
  guides: 'guides',
  /** The page of one guide. */
  guide: (slug: string) => `guide:${slug}`,
  faq: 'faq',
})

/** A guide as its file says, with its place in the list (front matter `order`). */
export interface GuideEntry extends Guide {
  order: number
}

/**
 * The example site's content, read from CONTENT_DIR at run time (docs/content.md): guides from `guides/<slug>.md`,
 * the FAQ from `faq/<anchor>.md`. Every call reads the files again: loaders run once per kept page and again when it is
 * revalidated, so what a call returns is what the folder holds then. A file whose text has not changed since it was
 * last parsed is not parsed again (the parsed form is kept beside the text, compared whole, so no clock or file date
 * can make it serve an old version). Bad content throws COURIER_ERR_CONTENT_INVALID naming the file (relative to
 * CONTENT_DIR); an unreadable folder COURIER_ERR_CONTENT_UNREADABLE.
 */
export class ContentSource {
  readonly dir: string
  /** By file (relative to the folder): the text last parsed and what it gave. Read-only to every caller. */
  readonly #parsed = new BoundedCache<string, { text: string; parsed: MarkdownFile }>(caches.parsedContent, ({ text }) => Buffer.byteLength(text))

  constructor(dir: string) {
    this.dir = dir
  }

  /** Every guide, in order (front matter `order`, then slug). */
  async guides(): Promise<GuideEntry[]> {
    const slugs = await this.#names(contentLayout.guidesDir)
    const guides = await Promise.all(slugs.map((slug) => this.#readGuide(slug)))
    return guides.sort(byOrder).map(({ name: _name, ...guide }) => guide)
  }

  /** The guides' summaries, in order: from their front matter alone (a list needs no body). */
  async guideSummaries(): Promise<GuideSummary[]> {
    const slugs = await this.#names(contentLayout.guidesDir)
    const summaries = await Promise.all(
      slugs.map(async (slug) => {
        const file = `${contentLayout.guidesDir}/${slug}.md`
        const frontMatter = parseFrontMatter(await this.#text(file), file)
        return { name: slug, order: requiredOrder(frontMatter, file), ...guideSummary(slug, frontMatter, file) }
      }),
    )
    return summaries.sort(byOrder).map(({ slug, title, summary }) => ({ slug, title, summary }))
  }

  /** One guide, whole; undefined when the folder has no such guide. */
  async guide(slug: string): Promise<GuideEntry | undefined> {
    if (!(await this.#names(contentLayout.guidesDir)).includes(slug)) return undefined
    const { name: _name, ...guide } = await this.#readGuide(slug)
    return guide
  }

  /** The FAQ: one entry per file, in order (front matter `order`, then file name). */
  async faq(): Promise<FaqData> {
    const names = await this.#names(contentLayout.faqDir)
    const entries = await Promise.all(
      names.map(async (name) => {
        const file = `${contentLayout.faqDir}/${name}.md`
        const { frontMatter, body } = await this.#read(file)
        return { name, order: requiredOrder(frontMatter, file), question: requiredText(frontMatter, 'question', file), answer: body }
      }),
    )
    return { entries: entries.sort(byOrder).map(({ name, question, answer }) => ({ question, anchor: name, answer })) }
  }

  /** The names of a folder's Markdown files, without `.md`; a name a URL cannot keep readable is bad content. */
  async #names(folder: string): Promise<string[]> {
    let files: string[]
    try {
      files = await readdir(path.join(this.dir, folder))
    } catch (error) {
      throw new errors.ContentUnreadable(folder, (error as Error).message)
    }
    const names = files.filter((file) => file.endsWith('.md') && !file.startsWith('.')).map((file) => file.slice(0, -3))
    const misnamed = names.find((name) => !contentLayout.namePattern.test(name))
    if (misnamed !== undefined) {
      throw new errors.ContentInvalid(`${folder}/${misnamed}.md`, 'a content file is named <name>.md, the name lower-case words joined by -')
    }
    return names
  }

  async #readGuide(slug: string): Promise<GuideEntry & { name: string }> {
    const file = `${contentLayout.guidesDir}/${slug}.md`
    const { frontMatter, body } = await this.#read(file)
    return { name: slug, ...guideSummary(slug, frontMatter, file), order: requiredOrder(frontMatter, file), sections: sectionsOf(body, file) }
  }

  /** One file of the folder, parsed; `file` is relative to it and named in every error. */
  async #read(file: string): Promise<MarkdownFile> {
    const text = await this.#text(file)
    const kept = this.#parsed.get(file)
    if (kept?.text === text) return kept.parsed
    const parsed = parseMarkdown(text, file)
    this.#parsed.set(file, { text, parsed })
    return parsed
  }

  /** One file's text, refused above the size a page's content may have. */
  async #text(file: string): Promise<string> {
    const absolute = path.join(this.dir, file)
    let text: string
    try {
      const { size } = await stat(absolute)
      if (size > contentLayout.maxFileBytes) {
        throw new errors.ContentInvalid(file, `${size} bytes; at most ${contentLayout.maxFileBytes} are read`)
      }
      text = await readFile(absolute, 'utf8')
    } catch (error) {
      if (error instanceof errors.ContentInvalid) throw error
      throw new errors.ContentUnreadable(file, (error as Error).message)
    }
    return text
  }
}

/** Front matter order, then file name: the order a folder's files are listed in. */
function byOrder(a: { order: number; name: string }, b: { order: number; name: string }): number {
  return a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
}

function requiredOrder(frontMatter: Readonly<Record<string, unknown>>, file: string): number {
  const order = frontMatter.order
  if (typeof order !== 'number' || !Number.isFinite(order)) {
    throw new errors.ContentInvalid(file, 'front matter field order must be a number (the place in the list)')
  }
  return order
}

function guideSummary(slug: string, frontMatter: Readonly<Record<string, unknown>>, file: string): GuideSummary {
  return { slug, title: requiredText(frontMatter, 'title', file), summary: requiredText(frontMatter, 'summary', file) }
}

function requiredText(frontMatter: Readonly<Record<string, unknown>>, field: string, file: string): string {
  const value = frontMatter[field]
  if (typeof value !== 'string' || value.trim() === '') {
    throw new errors.ContentInvalid(file, `front matter field ${field} is missing (or not text)`)
  }
  return value.trim()
}

/** The body cut at its `##` headings: each section its heading, anchor and what follows up to the next one. */
function sectionsOf(body: Root, file: string): Array<{ heading: string; anchor: string; content: Root }> {
  const sections: Array<{ heading: string; anchor: string; content: Root }> = []
  for (const node of body.children) {
    if (node.type === 'element' && node.tagName === 'h2') {
      sections.push({ heading: textOf(node), anchor: String(node.properties.id), content: { type: 'root', children: [] } })
      continue
    }
    const current = sections[sections.length - 1]
    if (!current) throw new errors.ContentInvalid(file, 'text before the first ## heading (each section starts with one)')
    current.content.children.push(node as RootContent & ElementContent)
  }
  if (sections.length === 0) throw new errors.ContentInvalid(file, 'no ## heading: the body is made of sections')
  return sections
}
