import { contentImages, contentLayout, contentReads, markdownParsing } from '../../config/content.ts'
import { imageOptimizer } from '../../config/images.ts'
import type { FaqData, Guide, GuideSummary } from '../../site/data-types.ts'
import { errors } from '../errors.ts'
import { ContentFiles, type ContentReadStats, type RefusedReason } from './content-files.ts'
import { sectionsOf } from './guide-sections.ts'
import type { MarkdownFile } from './markdown.ts'
import { hasContentImage, withImageSizes } from './image-sizes.ts'
import { ImageVersions, type OpenedImage, type PixelSize } from './image-versions.ts'
import { ParsedVersions } from './parsed-versions.ts'
import { byOrder, guideSummary, requiredOrder, requiredText } from './required-fields.ts'

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

/** Where a content source tells what it refused (a pino logger in the app). */
export interface ContentLog {
  warn(fields: Record<string, unknown>, message: string): void
}

export interface ContentSourceOptions {
  log?: ContentLog
  /** Overrides of config/content.ts (tests shorten them). */
  limits?: Partial<
    Record<
      | keyof typeof contentReads
      | keyof typeof markdownParsing
      | 'maxFileBytes'
      | 'maxNestingDepth'
      | 'maxFrontMatterBytes',
      number
    >
  >
}

/**
 * The example site's content, read from CONTENT_DIR at run time (docs/content.md): guides from `guides/<slug>.md`,
 * the FAQ from `faq/<anchor>.md`. Every call reads the files again: loaders run once per kept page and again when it is
 * revalidated, so what a call returns is what the folder holds then; each version of a file's text is parsed once
 * (src/content/parsed-versions.ts). Files are untrusted input (docs/content.md "What a content file may be"): read
 * within bounds (src/content/content-files.ts), checked before parsing and parsed off the event loop. A file that is
 * not content (a FIFO, a device, a link out of the folder) is left out, with a warn line: its page is a 404. Bad
 * content throws COURIER_ERR_CONTENT_INVALID naming the file (relative to CONTENT_DIR); an unreadable folder, or one
 * that does not answer in time, COURIER_ERR_CONTENT_UNREADABLE.
 */
export class ContentSource {
  readonly dir: string
  readonly #files: ContentFiles
  readonly #parsed: ParsedVersions
  readonly #images: ImageVersions
  readonly #log: ContentLog | undefined

  constructor(dir: string, options: ContentSourceOptions = {}) {
    this.dir = dir
    const limits = { ...contentReads, ...markdownParsing, ...contentLayout, ...options.limits }
    const log = options.log
    const refused = (file: string, reason: RefusedReason) => log?.warn({ file, reason }, 'content file refused')
    this.#files = new ContentFiles(dir, limits, refused)
    this.#parsed = new ParsedVersions(limits)
    this.#images = new ImageVersions(this.#files, { maxBytes: imageOptimizer.maxSourceBytes, ...contentImages }, log)
    this.#log = log
  }

  /**
   * An image of the content, `images/<name>` (docs/content.md "Images of the content"): its bytes, or undefined when
   * there is none, the name is not one an image may have, or the file is not content (a link out of the folder).
   */
  async image(name: string): Promise<Buffer | undefined> {
    if (!contentImages.namePattern.test(name)) return undefined
    return this.#files.bytes(`${contentImages.dir}/${name}`, imageOptimizer.maxSourceBytes, 'images')
  }

  /**
   * An image of the content opened to be answered (plugins/content-images.ts): streamed, its ETag kept per version;
   * undefined as for `image`, and for a file over the size limit (told once per version).
   */
  openImage(name: string): Promise<OpenedImage | undefined> {
    if (!contentImages.namePattern.test(name)) return Promise.resolve(undefined)
    return this.#images.open(`${contentImages.dir}/${name}`)
  }

  /** An image's pixel size from its header, read once per version of the file; undefined as for `openImage`. */
  imageSize(name: string): Promise<PixelSize | undefined> {
    if (!contentImages.namePattern.test(name)) return Promise.resolve(undefined)
    return this.#images.pixelSize(`${contentImages.dir}/${name}`)
  }

  /** The reads of the folder now and since start: the health details and metrics report them. */
  get readStats(): ContentReadStats {
    return this.#files.stats
  }

  /** Ends the parser's thread (the app's close). */
  close(): Promise<void> {
    return this.#parsed.close()
  }

  /** Every guide, in order (front matter `order`, then slug). */
  async guides(): Promise<GuideEntry[]> {
    const slugs = await this.#names(contentLayout.guidesDir)
    const guides = (
      await Promise.all(slugs.map((slug) => this.#readGuide(slug)))
    ).filter((guide) => guide !== undefined)
    return guides.sort(byOrder).map(({ name: _name, ...guide }) => guide)
  }

  /** The guides' summaries, in order: from their front matter alone (a list needs no body). */
  async guideSummaries(): Promise<GuideSummary[]> {
    const slugs = await this.#names(contentLayout.guidesDir)
    const summaries = await Promise.all(
      slugs.map(async (slug) => {
        const file = `${contentLayout.guidesDir}/${slug}.md`
        const text = await this.#files.text(file)
        if (text === undefined) return undefined
        const frontMatter = this.#parsed.frontMatter(text, file)
        return { name: slug, order: requiredOrder(frontMatter, file), ...guideSummary(slug, frontMatter, file) }
      }),
    )
    return summaries
      .filter((summary) => summary !== undefined)
      .sort(byOrder)
      .map(({ slug, title, summary }) => ({ slug, title, summary }))
  }

  /** One guide, whole; undefined when the folder has no such guide. */
  async guide(slug: string): Promise<GuideEntry | undefined> {
    if (!(await this.#names(contentLayout.guidesDir)).includes(slug)) return undefined
    const read = await this.#readGuide(slug)
    if (!read) return undefined
    const { name: _name, ...guide } = read
    return guide
  }

  /** The FAQ: one entry per file, in order (front matter `order`, then file name). */
  async faq(): Promise<FaqData> {
    const names = await this.#names(contentLayout.faqDir)
    const entries = await Promise.all(
      names.map(async (name) => {
        const file = `${contentLayout.faqDir}/${name}.md`
        const read = await this.#read(file)
        if (!read) return undefined
        const { frontMatter, body } = read
        return {
          name,
          order: requiredOrder(frontMatter, file),
          question: requiredText(frontMatter, 'question', file),
          answer: body,
        }
      }),
    )
    return {
      entries: entries
        .filter((entry) => entry !== undefined)
        .sort(byOrder)
        .map(({ name, question, answer }) => ({ question, anchor: name, answer })),
    }
  }

  /** The names of a folder's Markdown files, without `.md`; a name a URL cannot keep readable is bad content. */
  async #names(folder: string): Promise<string[]> {
    const files = await this.#files.list(folder)
    const names = files.filter((file) => file.endsWith('.md') && !file.startsWith('.')).map((file) => file.slice(0, -3))
    const misnamed = names.find((name) => !contentLayout.namePattern.test(name))
    if (misnamed !== undefined) {
      throw new errors.ContentInvalid(
        `${folder}/${misnamed}.md`,
        'a content file is named <name>.md, the name lower-case words joined by -',
      )
    }
    return names
  }

  async #readGuide(slug: string): Promise<(GuideEntry & { name: string }) | undefined> {
    const file = `${contentLayout.guidesDir}/${slug}.md`
    const read = await this.#read(file)
    if (!read) return undefined
    const { frontMatter, body } = read
    return {
      name: slug,
      ...guideSummary(slug, frontMatter, file),
      order: requiredOrder(frontMatter, file),
      sections: sectionsOf(body, file),
    }
  }

  /**
   * One file of the folder, parsed (undefined when it is not content); `file` is relative to it and named in every
   * error.
   */
  async #read(file: string): Promise<MarkdownFile | undefined> {
    const text = await this.#files.text(file)
    if (text === undefined) return undefined
    const parsed = await this.#parsed.parse(text, file)
    if (!hasContentImage(parsed.body)) return parsed
    return {
      frontMatter: parsed.frontMatter,
      body: await withImageSizes(parsed.body, file, (name) => this.imageSize(name), this.#log),
    }
  }
}
