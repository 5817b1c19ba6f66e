/**
 * The Markdown parser's thread (src/content/markdown-parser.ts): parses one file at a time, off the event loop that
 * serves requests. Answers `{ id, file }` with the parsed file or `{ id, error }` with the reason it is bad.
 */
import { parentPort } from 'node:worker_threads'
import { parseMarkdown } from './markdown.ts'
import { parserReady, type ParseJob, type ParseResult } from './markdown-messages.ts'

parentPort?.on('message', function parseJob({ id, text, file }: ParseJob) {
  let result: ParseResult
  try {
    result = { id, parsed: parseMarkdown(text, file) }
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string }
    // COURIER_ERR_CONTENT_INVALID says what is wrong with the file; anything else (a stack overflow) that the parser
    // failed on it.
    const text = String(message)
    const reason = text.startsWith(`Content file ${file} is invalid: `)
      ? text.slice(`Content file ${file} is invalid: `.length)
      : text
    result = code === 'COURIER_ERR_CONTENT_INVALID' ? { id, invalid: reason } : { id, failed: text }
  }
  parentPort!.postMessage(result)
})
parentPort?.postMessage(parserReady)
