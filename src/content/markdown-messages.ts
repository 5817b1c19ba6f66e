/**
 * What the event loop and the Markdown parser's thread (src/content/markdown-worker.ts) say to each other: apart from
 * the thread's module, so the event loop's side (src/content/markdown-parser.ts) loads none of the parser.
 */
import type { MarkdownFile } from './markdown.ts'

export interface ParseJob {
  id: number
  text: string
  file: string
}

export type ParseResult = {
  id: number
  parsed: MarkdownFile
} | { id: number; invalid: string } | { id: number; failed: string }

/** Posted once the parser is loaded: a parse's time counts from here, not from the thread's start. */
export const parserReady = 'ready'
