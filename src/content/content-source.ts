import { contentImages, contentIndex, contentLayout, contentReads, markdownParsing } from '../../config/content.ts'
import { imageOptimizer } from '../../config/images.ts'
import type { FaqData, Guide, GuideListPage, GuideSummary } from '../../site/data-types.ts'
import { errors } from '../errors.ts'
import { ContentFiles, type ContentReadStats } from './content-files.ts'
import { ContentIndex, type IndexSnapshot } from './content-index.ts'
import { IndexReads } from './index-reads.ts'
import type { DatedText, RefusedReason } from './read-rules.ts'
import { sectionsOf } from './guide-sections.ts'
import type { MarkdownFile } from './markdown.ts'
import { hasContentImage, withImageSizes } from './image-sizes.ts'
import { ImageVersions, type OpenedImage, type PixelSize } from './image-versions.ts'
import { ParsedVersions } from './parsed-versions.ts'
import { byOrder, guideSummary, lastModifiedOf, optionalTags, requiredOrder, requiredText } from './required-fields.ts'

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

/** A guide as the index keeps it: its front matter's listed fields, never its body. */
export interface IndexedGuide extends GuideSummary {
  name: string
  order: number
  tags: readonly string[]
  /** ISO 8601: front matter `updated` or `date`, else the file's modification time when this version was read. */
  lastModified: string
}

/** What the health route says of the index of the guides. */
export interface ContentIndexStats {
  ready: boolean
  guides: number
  version: number
}

/** Where a content source tells what it refused (a pino logger in the app). */
export interface ContentLog {
  warn(fields: Record<string, unknown>, message: string): void
  info?(fields: Record<string, unknown>, message: string): void
}

export interface ContentSourceOptions {
  log?: ContentLog
  /** Overrides of config/content.ts (tests shorten them). */
  limits?: Partial<
    Record<
      | keyof typeof contentReads
      | keyof typeof markdownParsing
      | keyof typeof contentIndex
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
  /** The index's reads of a large folder, on a thread of their own; a small one's go through #files. */
  readonly #indexReads: IndexReads
  /** Whether the last listing of the guides counted `threadFromGuides` or more: the thread reads them. */
  #indexOnThread = false
  readonly #parsed: ParsedVersions
  readonly #images: ImageVersions
  readonly #log: ContentLog | undefined
  readonly #index: ContentIndex<IndexedGuide>
  readonly #pageSize: number
  /** The newest `lastModified` of the guides, for one version of the index: the sitemap asks it once per listing page,
   * and a scan of 100,000 guides for each of their 3,334 listing pages held the event loop for 12 s. */
  #newest: { version: number; lastModified: string | undefined } | undefined

  constructor(dir: string, options: ContentSourceOptions = {}) {
    this.dir = dir
    const limits = { ...contentReads, ...markdownParsing, ...contentLayout, ...contentIndex, ...options.limits }
    this.#pageSize = limits.listingPageSize
    const log = options.log
    const refused = (file: string, reason: RefusedReason) => log?.warn({ file, reason }, 'content file refused')
    this.#files = new ContentFiles(dir, limits, refused)
    this.#indexReads = new IndexReads(dir, { ...limits, idleMs: limits.threadIdleMs }, refused)
    this.#parsed = new ParsedVersions(limits)
    this.#images = new ImageVersions(this.#files, { maxBytes: imageOptimizer.maxSourceBytes, ...contentImages }, log)
    this.#log = log
    this.#index = new ContentIndex<IndexedGuide>({
      list: async () => {
        const names = await this.#names(contentLayout.guidesDir)
        this.#indexOnThread = names.length >= limits.threadFromGuides
        return names
      },
      read: (name) => this.#indexReader.datedText(`${contentLayout.guidesDir}/${name}.md`),
      identify: (name) => this.#indexReader.identity(`${contentLayout.guidesDir}/${name}.md`),
      entry: (name, read) => this.#indexedGuide(name, read),
      ...limits,
      onCheckFailed: (error) => log?.warn({ err: error }, 'content index check failed'),
      // Told when it changed (the first build included), not at every check.
      onChecked: (report) => {
        if (report.changed > 0 || report.version === 1) log?.info?.(report, 'content index updated')
      },
    })
  }

  /** Who reads the index's files in this check (docs/content.md "How many pages"). */
  get #indexReader(): Pick<IndexReads, 'datedText' | 'identity'> {
    return this.#indexOnThread ? this.#indexReads : this.#files
  }

  /** Starts building the index of the guides (the app's start): logged, never thrown (a page asks it again). */
  warmIndex(): void {
    this.#index.warm().catch((error: unknown) => this.#log?.warn({ err: error }, 'content index check failed'))
  }

  /** The folder may have changed (a revalidation): the index is checked again before it is next read. */
  recheckIndex(): void {
    this.#index.recheck()
  }

  /** The index's state: the health route reports it (`ready` once it was first built). */
  get indexStats(): ContentIndexStats {
    const snapshot = this.#index.snapshot
    return { ready: snapshot !== undefined, guides: snapshot?.entries.length ?? 0, version: snapshot?.version ?? 0 }
  }

  /** The index of the guides as it is (waiting for it when it was never built, or a revalidation asked again). */
  guideIndex(): Promise<IndexSnapshot<IndexedGuide>> {
    return this.#index.current()
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
    const [pages, index] = [this.#files.stats, this.#indexReads.stats]
    return {
      inFlight: pages.inFlight + index.inFlight,
      stuck: pages.stuck + index.stuck,
      timedOut: pages.timedOut + index.timedOut,
    }
  }

  /** Ends the parser's and the index's threads (the app's close). */
  async close(): Promise<void> {
    await Promise.all([this.#parsed.close(), this.#indexReads.close()])
  }

  /** Every guide, in order (front matter `order`, then slug). */
  async guides(): Promise<GuideEntry[]> {
    const slugs = await this.#names(contentLayout.guidesDir)
    const guides = (
      await Promise.all(slugs.map((slug) => this.#readGuide(slug)))
    ).filter((guide) => guide !== undefined)
    return guides.sort(byOrder).map(({ name: _name, ...guide }) => guide)
  }

  /** The guides' summaries, in order: from the index (no file is read once it is built). */
  async guideSummaries(): Promise<GuideSummary[]> {
    return (await this.#index.current()).entries.map(summaryOf)
  }

  /** One page of the list of guides (`listingPageSize` each), from the index; undefined past its last page. */
  async guideListPage(page: number): Promise<GuideListPage | undefined> {
    const { entries } = await this.#index.current()
    const pages = Math.max(1, Math.ceil(entries.length / this.#pageSize))
    if (!Number.isInteger(page) || page < 1 || page > pages) return undefined
    const guides = entries.slice((page - 1) * this.#pageSize, page * this.#pageSize).map(summaryOf)
    return { guides, page, pages, total: entries.length }
  }

  /** A guide's neighbours in the list, from the index; none for a guide it does not hold (yet). */
  async guideNeighbours(slug: string): Promise<{ previous: GuideSummary | null; next: GuideSummary | null }> {
    const { entries, positions } = await this.#index.current()
    const position = positions.get(slug)
    if (position === undefined) return { previous: null, next: null }
    const [previous, next] = [entries[position - 1], entries[position + 1]]
    return { previous: previous ? summaryOf(previous) : null, next: next ? summaryOf(next) : null }
  }

  /** When a guide last changed, from the index (with no slug, the newest of all); undefined when there is none. */
  async guideLastModified(slug?: string): Promise<string | undefined> {
    const { entries, positions, version } = await this.#index.current()
    if (slug !== undefined) {
      const position = positions.get(slug)
      return position === undefined ? undefined : entries[position]!.lastModified
    }
    if (this.#newest?.version === version) return this.#newest.lastModified
    let newest: string | undefined
    for (const entry of entries) if (newest === undefined || entry.lastModified > newest) newest = entry.lastModified
    this.#newest = { version, lastModified: newest }
    return newest
  }

  /**
   * One guide, whole; undefined when the folder has no such guide. Its file alone is read: neither a listing of the
   * folder nor another guide.
   */
  async guide(slug: string): Promise<GuideEntry | undefined> {
    if (!contentLayout.namePattern.test(slug)) return undefined
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

  /** A guide's index entry from its text: its front matter alone is parsed, on the event loop (it is small). */
  #indexedGuide(name: string, { text, modifiedMs }: DatedText): IndexedGuide {
    const file = `${contentLayout.guidesDir}/${name}.md`
    const frontMatter = this.#parsed.frontMatter(text, file)
    return {
      name,
      ...guideSummary(name, frontMatter, file),
      order: requiredOrder(frontMatter, file),
      tags: optionalTags(frontMatter, file),
      lastModified: lastModifiedOf(frontMatter, file, modifiedMs),
    }
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

function summaryOf({ slug, title, summary }: IndexedGuide): GuideSummary {
  return { slug, title, summary }
}
