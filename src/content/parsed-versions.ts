import { caches } from '../../config/caches.ts'
import { BoundedCache } from '../bounded-cache.ts'
import { errors } from '../errors.ts'
import { readFrontMatter, splitFrontMatter } from './front-matter.ts'
import type { MarkdownFile } from './markdown.ts'
import { checkNesting } from './markdown-bounds.ts'
import { isBoundFailure, MarkdownParser, type MarkdownParserLimits } from './markdown-parser.ts'

/** The parser's own bounds and the checks before it (config/content.ts). */
export interface ParsedVersionsLimits extends MarkdownParserLimits {
  maxNestingDepth: number
  maxFrontMatterBytes: number
  /** A failure of a bound (time, memory) is kept this long, then the same text is parsed again. */
  boundFailureRetryMs: number
}

/**
 * What the parse of one version of a file gave: kept whole, a failure too, so no visitor makes it fail again; a
 * failure of a bound (the parse's time or memory, which a busy machine can meet once) until `retryAt` only.
 */
type ParseOutcome = { text: string; parsed: MarkdownFile } | { text: string; failure: Error; retryAt?: number }

/**
 * Each version of a content file's text parsed once: a text that has not changed since it was last parsed is not
 * parsed again, nor one whose parse failed (the outcome is kept beside the text, compared whole, so no clock or file
 * date can make it serve an old version). Before parsing, the front matter's size and the Markdown's nesting are
 * checked; the parse itself runs off the event loop (src/content/markdown-parser.ts).
 */
export class ParsedVersions {
  readonly #parser: MarkdownParser
  readonly #limits: ParsedVersionsLimits
  /** By file (relative to the folder): the text last parsed and what it gave. Read-only to every caller. */
  readonly #parsed = new BoundedCache<string, ParseOutcome>(caches.parsedContent, ({ text }) => Buffer.byteLength(text))

  constructor(limits: ParsedVersionsLimits) {
    this.#parser = new MarkdownParser(limits)
    this.#limits = limits
  }

  /** A file's text parsed, or its failure, once per version of the text; `file` is named in every error. */
  async parse(text: string, file: string): Promise<MarkdownFile> {
    const kept = this.#parsed.get(file)
    if (kept?.text === text) {
      if (!('failure' in kept)) return kept.parsed
      if (kept.retryAt === undefined || Date.now() < kept.retryAt) throw kept.failure
    }
    try {
      const { yaml, markdown } = splitFrontMatter(text)
      this.#checkFrontMatterSize(yaml, file)
      checkNesting(markdown, file, this.#limits.maxNestingDepth)
      const parsed = await this.#parser.parse(text, file)
      this.#parsed.set(file, { text, parsed })
      return parsed
    } catch (error) {
      // A bad file fails the same way for every visitor until it changes, without being parsed again.
      if (error instanceof errors.ContentInvalid) {
        const retryAt = isBoundFailure(error) ? Date.now() + this.#limits.boundFailureRetryMs : undefined
        this.#parsed.set(file, { text, failure: error, ...(retryAt === undefined ? {} : { retryAt }) })
      }
      throw error
    }
  }

  /** The front matter alone, the body left unparsed: what a list of the files needs (a guide's title and summary). */
  frontMatter(text: string, file: string): Readonly<Record<string, unknown>> {
    const { yaml } = splitFrontMatter(text)
    this.#checkFrontMatterSize(yaml, file)
    return readFrontMatter(yaml, file)
  }

  /** Ends the parser's thread. */
  close(): Promise<void> {
    return this.#parser.close()
  }

  #checkFrontMatterSize(yaml: string | undefined, file: string): void {
    const bytes = yaml === undefined ? 0 : Buffer.byteLength(yaml)
    if (bytes > this.#limits.maxFrontMatterBytes) {
      const most = this.#limits.maxFrontMatterBytes
      throw new errors.ContentInvalid(file, `front matter of ${bytes} bytes; at most ${most}`)
    }
  }
}
